/**
 * Contract console.log on a dev chain (docs/dev-chain.md, "Contract console.log"): a transaction's
 * calls to the console address are decoded and logged with its hash; anvil_setLoggingEnabled and
 * hardhat_setLoggingEnabled turn the printing off and on. The VM runs exactly as without it: the same
 * transaction uses the same gas and reaches the same state on a node that is not a dev chain, which
 * prints nothing.
 */
import { createTestClient, createWalletClient, encodeFunctionData, getAddress, http, type Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReceiptJson } from '../../src/api/eth/format.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { createLogger } from '../../src/utils/logger.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import { compileContracts } from '../helpers/solidity.js'

const [A] = devAccounts(1)
const account = privateKeyToAccount(A!.privateKey as Hex)
const { ConsoleUser } = compileContracts('ConsoleUser.sol')
const abi = ConsoleUser!.abi as Abi

/** A node whose log lines (JSON) are kept for the test to read. */
async function startLoggedNode(dev: boolean): Promise<{ t: TestNode; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = []
  const log = createLogger({ level: 'info', format: 'json', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) })
  return { t: await startTestNode({ dev, log }), lines }
}

async function mined(t: TestNode, hash: Hex): Promise<ReceiptJson> {
  return waitForBlock(t, async () => (await rpc<ReceiptJson | null>(t.url, 'eth_getTransactionReceipt', [hash])).result)
}

/** Deploys ConsoleUser and returns a function that sends `work(n)` and waits for its receipt. */
async function deploy(t: TestNode): Promise<(n: bigint) => Promise<{ hash: Hex; receipt: ReceiptJson }>> {
  const wallet = createWalletClient({ account, chain: foundry, transport: http(t.url) })
  const deployed = await mined(t, await wallet.deployContract({ abi, bytecode: ConsoleUser!.bytecode as Hex }))
  const address = deployed.contractAddress as Hex
  return async (n) => {
    const data = encodeFunctionData({ abi, functionName: 'work', args: [n] })
    const hash = await wallet.sendTransaction({ to: address, data, gas: 200_000n })
    return { hash, receipt: await mined(t, hash) }
  }
}

const consoleTexts = (lines: Record<string, unknown>[], tx: Hex): unknown[] =>
  lines.filter((l) => l.msg === 'console.log' && l.tx === tx).map((l) => l.text)

describe('contract console.log', () => {
  let dev: { t: TestNode; lines: Record<string, unknown>[] }
  let plain: { t: TestNode; lines: Record<string, unknown>[] }

  beforeAll(async () => {
    dev = await startLoggedNode(true)
    plain = await startLoggedNode(false)
  })
  afterAll(async () => {
    await dev?.t.destroy()
    await plain?.t.destroy()
  })

  it("prints each call decoded, with its transaction's hash, and toggles with setLoggingEnabled", async () => {
    const work = await deploy(dev.t)
    const first = await work(1n)
    expect(first.receipt.status).toBe('0x1')
    expect(consoleTexts(dev.lines, first.hash)).toEqual([
      'work called with 1',
      `sender ${account.address} true`,
      `1 fourth false ${getAddress(first.receipt.to!)}`,
      '-5',
      '0xdeadbeef',
      '0x0102',
      '1',
      '',
    ])

    expect((await rpc(dev.t.url, 'anvil_setLoggingEnabled', [false])).result).toBeNull()
    const quiet = await work(2n)
    expect(consoleTexts(dev.lines, quiet.hash)).toEqual([])

    const hardhat = createTestClient({ mode: 'hardhat', chain: foundry, transport: http(dev.t.url) })
    await hardhat.setLoggingEnabled(true)
    expect((await rpc(dev.t.url, 'hardhat_setLoggingEnabled', [true])).result).toBe(true)
    const again = await work(3n)
    expect(consoleTexts(dev.lines, again.hash)[0]).toBe('work called with 3')
  })

  it('changes nothing the chain computes: the same gas and state on a node that is not a dev chain, which prints nothing', async () => {
    const onDev = await (await deploy(dev.t))(7n)
    const onPlain = await (await deploy(plain.t))(7n)
    expect(onPlain.receipt.status).toBe('0x1')
    expect(onPlain.receipt.gasUsed).toBe(onDev.receipt.gasUsed)
    expect(plain.lines.filter((l) => l.msg === 'console.log')).toEqual([])
    expect((await rpc(plain.t.url, 'anvil_setLoggingEnabled', [true])).error).toMatchObject({ code: -32601 })
  })
})
