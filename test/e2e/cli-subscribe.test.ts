/**
 * `nodectl subscribe ...` run in-process against a real dev node: JSON lines per event, a clean stop
 * after --count events or on SIGINT (unsubscribed, socket closed), a reconnection with back-off when
 * the node restarts, and `cannot reach node at URL` when nothing listens.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import SubscribeLogs from '../../src/commands/subscribe/logs.js'
import SubscribeNewHeads from '../../src/commands/subscribe/new-heads.js'
import SubscribeNewPendingTransactions from '../../src/commands/subscribe/new-pending-transactions.js'
import { startTestNode, type TestNode } from '../helpers/dev-node.js'
import { nextSubscription, runCli, startCli } from '../helpers/cli.js'
import { pickPort, withPortRetry } from '../helpers/ports.js'

const [A0, A1] = devAccounts(2)

/**
 * Starts the dev node on a port chosen ahead (restarts keep the client's URL): outside the ephemeral range,
 * where no outgoing connection takes it between restarts, and on another one if it is taken at the first start.
 */
async function startOnFixedPort(setPort: (port: number) => void, flags: () => Record<string, unknown>): Promise<TestNode> {
  const home = await mkdtemp(join(tmpdir(), 'nodectl-test-'))
  return withPortRetry(async () => {
    setPort(await pickPort())
    return startTestNode({ home, flags: flags() })
  })
}

describe('nodectl subscribe against a dev node', () => {
  let t: TestNode
  let wsPort: number
  let provider: JsonRpcProvider
  const flags = () => ({ 'json-rpc.ws-address': `127.0.0.1:${wsPort}` })
  const ws = () => ['--ws', `ws://127.0.0.1:${wsPort}`]

  const sendValue = async (): Promise<string> => {
    const wallet = new Wallet(A0!.privateKey, provider)
    const tx = await wallet.sendTransaction({ to: A1!.address, value: 1n })
    await tx.wait()
    return tx.hash
  }

  beforeAll(async () => {
    t = await startOnFixedPort((port) => (wsPort = port), flags)
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('newHeads --count 1 --json prints one head as a JSON line, then stops cleanly', async () => {
    const subscribed = nextSubscription()
    const running = runCli(SubscribeNewHeads, [...ws(), '--count', '1', '--json'])
    await subscribed
    await sendValue()
    const run = await running
    expect(run.error).toBeUndefined()
    expect(run.result).toMatchObject({ events: 1, reconnects: 0, stoppedBy: 'count' })
    expect(run.stdout).toHaveLength(1)
    const head = JSON.parse(run.stdout[0]!)
    expect(head.hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(head.number).toMatch(/^0x[0-9a-f]+$/)
  })

  it('SIGINT unsubscribes, closes and returns normally', async () => {
    const subscribed = nextSubscription()
    const running = runCli(SubscribeNewHeads, [...ws()])
    await subscribed
    process.emit('SIGINT')
    const run = await running
    expect(run.error).toBeUndefined()
    expect(run.result).toMatchObject({ stoppedBy: 'signal' })
    expect(run.stderr.join('\n')).toMatch(/subscribed to newHeads/)
  })

  it('newPendingTransactions --full streams the transaction', async () => {
    const subscribed = nextSubscription()
    const running = runCli(SubscribeNewPendingTransactions, [...ws(), '--full', '--count', '1', '--json'])
    await subscribed
    const hash = await sendValue()
    const run = await running
    expect(run.error).toBeUndefined()
    expect(JSON.parse(run.stdout[0]!)).toMatchObject({ hash, from: A0!.address.toLowerCase() })
  })

  it('logs --address streams the matching logs', async () => {
    const { Store } = compileContracts('Store.sol')
    const store = (await (
      await new ContractFactory(Store!.abi as never, Store!.bytecode, new Wallet(A0!.privateKey, provider)).deploy(1n)
    ).waitForDeployment()) as unknown as Contract
    const address = (await store.getAddress()).toLowerCase()
    const subscribed = nextSubscription()
    const running = runCli(SubscribeLogs, [...ws(), '--address', address, '--count', '1', '--json'])
    await subscribed
    const tx = await store.getFunction('set')(5n, 'streamed')
    await tx.wait()
    const run = await running
    expect(run.error).toBeUndefined()
    expect(JSON.parse(run.stdout[0]!)).toMatchObject({ address, transactionHash: tx.hash, removed: false })
  })

  it('reconnects with back-off when the node restarts, and says so', async () => {
    const subscribed = nextSubscription()
    const cli = startCli(SubscribeNewHeads, [...ws(), '--json', '--max-reconnect-delay', '100'])
    await subscribed
    await sendValue()
    await cli.line('stdout')
    const home = t.home
    await t.stop()
    provider.destroy()
    await cli.line('stderr', (l) => l.includes('"reconnecting"'))
    t = await startTestNode({ home, flags: flags() })
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    await cli.line('stderr', (l) => l.includes('"reconnected"'))
    const seen = cli.stdout.length
    await sendValue()
    await cli.line('stdout', () => true, seen)
    process.emit('SIGINT')
    const run = await cli.done
    expect(run.error).toBeUndefined()
    expect(run.result).toMatchObject({ stoppedBy: 'signal', reconnects: 1 })
  }, 30_000)

  it('an unreachable node: "cannot reach node at URL" and exit 1', async () => {
    const run = await runCli(SubscribeNewHeads, ['--ws', 'ws://127.0.0.1:1'])
    expect(run.error?.message).toMatch(/^cannot reach node at ws:\/\/127\.0\.0\.1:1/)
    expect(run.exitCode).toBe(1)
  })
})
