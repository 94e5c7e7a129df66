/**
 * What eth_subscribe hears when a dev chain goes back to a snapshot (docs/dev-chain.md, "Snapshots"): a
 * `logs` subscriber gets the removed blocks' logs again with `removed: true`, in chain order, before
 * anything of the new chain (geth's reorg notifications); `newHeads` goes on from the reverted head,
 * the next block's number following it and its parentHash the reverted head's hash.
 */
import { Interface, Wallet, keccak256 } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { compileContracts } from '../helpers/solidity.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import { RawWsClient } from '../helpers/ws-client.js'
import type { LogJson } from '../../src/api/eth/format.js'

interface HeadJson {
  number: string
  hash: string
  parentHash: string
}

const { Emitter } = compileContracts('Emitter.sol')
const emitter = new Interface(Emitter!.abi as string[])
const [account] = devAccounts(1)
const wallet = new Wallet(account!.privateKey)

describe('subscriptions across evm_revert', () => {
  let t: TestNode
  let ws: RawWsClient

  const send = async (tx: { to?: string; data: string; gasLimit: bigint }): Promise<string> => {
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: 31337n,
      nonce: Number((await rpc<string>(t.url, 'eth_getTransactionCount', [wallet.address, 'latest'])).result),
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      ...tx,
    })
    expect((await rpc(t.url, 'eth_sendRawTransaction', [raw])).error).toBeUndefined()
    const hash = keccak256(raw)
    return waitForBlock(
      t,
      async () => (await rpc<{ contractAddress: string | null } | null>(t.url, 'eth_getTransactionReceipt', [hash])).result,
      20_000,
      'receipt',
    ).then((r) => r.contractAddress ?? hash)
  }
  const head = async (): Promise<HeadJson> => (await rpc<HeadJson>(t.url, 'eth_getBlockByNumber', ['latest', false])).result!

  beforeAll(async () => {
    t = await startTestNode()
    ws = await RawWsClient.connect(t.addresses.jsonRpcWs!)
  })
  afterAll(async () => {
    await ws?.close()
    await t?.destroy()
  })

  it('sends the removed logs again with removed: true, then newHeads from the reverted head', async () => {
    const address = await send({ data: Emitter!.bytecode, gasLimit: 1_000_000n })
    const logsSub = await ws.call<string>('eth_subscribe', ['logs', { address }])
    const headsSub = await ws.call<string>('eth_subscribe', ['newHeads'])
    const snapshot = await rpc<string>(t.url, 'evm_snapshot')
    const reverted = await head()

    // Two blocks of logs: two in the first, one in the second.
    const ping = (count: number, tag: number) => emitter.encodeFunctionData('ping', [count, `0x${tag.toString(16).padStart(64, '0')}`])
    await send({ to: address, data: ping(2, 1), gasLimit: 200_000n })
    await send({ to: address, data: ping(1, 2), gasLimit: 200_000n })
    await ws.waitForNotification<LogJson>(logsSub, (n) => n.result.data.endsWith('2'))
    const mined = ws.notifications<LogJson>(logsSub).map((n) => n.result)
    expect(mined.map((l) => l.removed)).toEqual([false, false, false])

    expect((await rpc(t.url, 'evm_revert', [snapshot.result])).result).toBe(true)
    // The last of the three in chain order.
    await ws.waitForNotification<LogJson>(logsSub, (n) => n.result.removed && n.result.data.endsWith('2'))
    const removed = ws.notifications<LogJson>(logsSub).slice(3)
    expect(removed.map((n) => n.result)).toEqual(mined.map((l) => ({ ...l, removed: true })))

    // The next block follows the reverted head: its number and parent.
    await send({ to: address, data: ping(1, 3), gasLimit: 200_000n })
    const newHead = await head()
    const next = await ws.waitForNotification<HeadJson>(headsSub, (n) => n.result.hash === newHead.hash)
    expect(Number(next.result.number)).toBe(Number(reverted.number) + 1)
    expect(next.result.parentHash).toBe(reverted.hash)
    // Its log is a new one (removed: false), at the new block; the removed ones came before the new chain's head.
    const fresh = await ws.waitForNotification<LogJson>(logsSub, (n) => !n.result.removed && n.result.data.endsWith('3'))
    expect(fresh.result.blockHash).toBe(next.result.hash)
    expect(Math.max(...removed.map((n) => ws.frames.indexOf(n.text)))).toBeLessThan(ws.frames.indexOf(next.text))
  })
})
