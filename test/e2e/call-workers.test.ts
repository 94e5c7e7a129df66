/**
 * eth_call and eth_estimateGas on the call workers (`[json-rpc] call-workers`, src/evm/calls/call-workers.ts):
 * a worker answers exactly as the main thread does (results, reverts with their data, estimates, older
 * heights, unknown heights), sees each new block's state, and a worker that cannot start leaves every
 * call to the main thread.
 */
import { Interface } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { CallWorkers } from '../../src/evm/calls/call-workers.js'
import { defaultCallOptions } from '../../src/evm/calls/calls.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { hexToBytes } from '../../src/primitives/hex.js'
import { silentLogger } from '../../src/utils/logger.js'
import { testCallWorkerScript } from '../helpers/call-worker-script.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { compileContracts } from '../helpers/solidity.js'

const { Token } = compileContracts('Token.sol')
const token = new Interface(Token!.abi as never)
const FROM = devAccounts()[0]!.address
const HOLDER = `0x${'cd'.repeat(20)}`

const nodes: TestNode[] = []
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.destroy()))
})

async function start(workers: boolean): Promise<TestNode> {
  // Without a script the workers are off (the sources have no compiled worker next to them).
  const node = await startTestNode(workers ? {} : { nodeOptions: { callWorkerScript: undefined } })
  nodes.push(node)
  return node
}

async function mined(url: string, tx: Record<string, string>): Promise<Record<string, unknown>> {
  const hash = (await rpc<string>(url, 'eth_sendTransaction', [{ from: FROM, gas: '0x200000', ...tx }])).result!
  return waitFor(async () => (await rpc<Record<string, unknown> | null>(url, 'eth_getTransactionReceipt', [hash])).result)
}

/** Deploys the token and transfers 250 to HOLDER; returns the token address and the transfer's block. */
async function deployAndTransfer(url: string): Promise<{ to: string; block: string }> {
  const deploy = await mined(url, { data: Token!.bytecode + token.encodeDeploy([1_000_000n]).slice(2) })
  const to = deploy.contractAddress as string
  const sent = await mined(url, { to, data: token.encodeFunctionData('transfer', [HOLDER, 250n]) })
  return { to, block: sent.blockNumber as string }
}

/** Calls and estimates whose answers only the chain decides. */
async function probe(url: string, to: string, block: string) {
  const call = (data: string, at: string, from?: string) => rpc(url, 'eth_call', [{ from, to, data }, at])
  const balanceOf = (who: string) => token.encodeFunctionData('balanceOf', [who])
  const before = `0x${(BigInt(block) - 1n).toString(16)}`
  return {
    balances: [(await call(balanceOf(FROM), 'latest')).result, (await call(balanceOf(HOLDER), 'latest')).result],
    holderBefore: (await call(balanceOf(HOLDER), before)).result,
    reverted: (await call(token.encodeFunctionData('transfer', [FROM, 251n]), 'latest', HOLDER)).error,
    badSelector: (await call('0xdeadbeef', 'latest')).error,
    estimate: (await rpc(url, 'eth_estimateGas', [{ from: FROM, to, data: token.encodeFunctionData('transfer', [HOLDER, 1n]) }])).result,
    estimateReverts: (await rpc(url, 'eth_estimateGas', [{ from: HOLDER, to, data: token.encodeFunctionData('transfer', [FROM, 251n]) }]))
      .error,
    unknownHeight: (await call(balanceOf(FROM), '0xffffff')).error,
  }
}

describe('call workers', () => {
  it('answer calls and estimates as the main thread does', async () => {
    const [withWorkers, without] = await Promise.all([start(true), start(false)])
    const workers = withWorkers.node.components.app.callWorkers!
    const onMain = without.node.components.app.callWorkers!
    expect(await workers.whenReady()).toBe(true)
    expect(await onMain.whenReady()).toBe(false)

    const [a, b] = await Promise.all([deployAndTransfer(withWorkers.url), deployAndTransfer(without.url)])
    expect(a.to).toBe(b.to)
    const sentBefore = workers.sent
    const answers = await probe(withWorkers.url, a.to, a.block)
    expect(answers).toEqual(await probe(without.url, b.to, b.block))
    expect(onMain.sent).toBe(0)
    // Every call and estimate but the one at an unknown height (refused before it is sent).
    expect(workers.sent - sentBefore).toBeGreaterThanOrEqual(1)

    expect(answers.balances).toEqual([
      `0x${(1_000_000n - 250n).toString(16).padStart(64, '0')}`,
      `0x${250n.toString(16).padStart(64, '0')}`,
    ])
    expect(answers.holderBefore).toBe(`0x${'0'.repeat(64)}`)
    expect(answers.reverted).toMatchObject({ code: 3, message: 'execution reverted: insufficient balance' })
    expect((answers.reverted as { data: string }).data).toMatch(/^0x08c379a0/)
    expect(answers.estimateReverts).toMatchObject({ code: 3, message: 'execution reverted: insufficient balance' })
    expect(answers.unknownHeight).toMatchObject({ code: -32000, message: 'header not found' })
  })

  it('start when more than 100 calls come within a second, not for a burst of 50', async () => {
    const node = await start(true)
    const workers = node.node.components.app.callWorkers!
    const started = new Promise((resolve) => workers.events.on('ready', resolve))
    const { to } = await deployAndTransfer(node.url)
    const balanceOf = (i: number) =>
      rpc(node.url, 'eth_call', [{ to, data: token.encodeFunctionData('balanceOf', [`0x${i.toString(16).padStart(40, '0')}`]) }, 'latest'])
    // A few calls, and a burst of 50 at once: the main thread answers them.
    for (let i = 1; i <= 5; i++) await balanceOf(i)
    await Promise.all(Array.from({ length: 50 }, (_, i) => balanceOf(100 + i)))
    expect(workers.sent).toBe(0)
    // Bursts until more than 100 calls came within a second (two in a row on any machine but a stalled one).
    let ready = false
    void started.then(() => (ready = true))
    let first = 1_000
    await waitFor(async () => {
      await Promise.all(Array.from({ length: 60 }, (_, i) => balanceOf(first + i)))
      first += 60
      return ready
    })
    expect(await started).toEqual({ worker: 0 })
    // A call right after a block is written runs here; the next ones go to the worker.
    await waitFor(async () => {
      await balanceOf(first++)
      return workers.sent > 0
    })
  })

  it('see the state of each new block', async () => {
    const node = await start(true)
    expect(await node.node.components.app.callWorkers!.whenReady()).toBe(true)
    const { to } = await deployAndTransfer(node.url)
    const holderBalance = async () =>
      BigInt((await rpc<string>(node.url, 'eth_call', [{ to, data: token.encodeFunctionData('balanceOf', [HOLDER]) }, 'latest'])).result!)
    for (let i = 1n; i <= 5n; i++) {
      await mined(node.url, { to, data: token.encodeFunctionData('transfer', [HOLDER, 10n]) })
      expect(await holderBalance()).toBe(250n + 10n * i)
    }
  })

  it('leave calls to the main thread when a worker cannot start', async () => {
    const node = await startTestNode({
      nodeOptions: { callWorkerScript: new URL('data:text/javascript,throw new Error("no worker here")') },
    })
    nodes.push(node)
    const workers = node.node.components.app.callWorkers!
    expect(await workers.whenReady()).toBe(false)
    const { to } = await deployAndTransfer(node.url)
    const reply = await rpc(node.url, 'eth_call', [{ to, data: token.encodeFunctionData('balanceOf', [HOLDER]) }, 'latest'])
    expect(reply.result).toBe(`0x${250n.toString(16).padStart(64, '0')}`)
    expect(workers.sent).toBe(0)
  })

  it('stop when idle and start again for the next call', async () => {
    const node = await start(false)
    const app = node.node.components.app
    const workers = new CallWorkers({
      count: 1,
      script: testCallWorkerScript(),
      idleStopMs: 20,
      data: {
        dbPath: node.node.config.paths.db,
        evmChainId: app.evmChainId,
        validatorAdmin: undefined,
        calls: defaultCallOptions,
        trieNodeCacheBytes: 1 << 20,
      },
      logger: silentLogger,
    })
    try {
      const args = { from: hexToBytes(FROM), to: hexToBytes(HOLDER), value: 1n }
      const stopped = () => new Promise((resolve) => workers.events.on('exit', resolve))
      const state = await app.stateAt()
      for (let round = 0; round < 2; round++) {
        expect(await workers.whenReady()).toBe(true)
        // Sent in the same turn as the ready message, before the idle timer can run.
        const answer = workers.call(args, state)
        const exited = stopped()
        expect(await answer).toEqual({ returnValue: new Uint8Array(0), gasUsed: 21_000n })
        expect(await exited).toEqual({ worker: 0, code: 0 })
        // No worker now: the call is not taken (it runs on the main thread).
        expect(workers.call(args, state)).toBeUndefined()
      }
    } finally {
      await workers.close()
    }
  })
})
