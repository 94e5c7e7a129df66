/**
 * A restarted dev node proposes as soon as transactions wait, as before the restart (issue 27, small): with
 * an empty-block interval of an hour, a transaction is committed only if its arrival makes the node propose,
 * so these tests need no clock — a node that waited for the interval would time out.
 */
import { Wallet, getBytes, keccak256 } from 'ethers'
import { rm } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'

/** Longer than any test: a block after it would mean the transaction did not trigger the proposal. */
const flags = { 'consensus.create_empty_blocks_interval': '1h' }

describe('a restarted dev node proposes when transactions wait', () => {
  const [sender, recipient] = devAccounts(2)
  const wallet = new Wallet(sender!.privateKey)
  let nonce = 0
  let home: string | undefined
  let current: TestNode | undefined
  afterAll(async () => {
    await current?.stop()
    if (home) await rm(home, { recursive: true, force: true })
  })

  async function signTransfer(): Promise<string> {
    return wallet.signTransaction({
      type: 2,
      chainId: 31337n,
      nonce: nonce++,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      to: recipient!.address,
      value: 1n,
    })
  }

  async function committedReceipt(t: TestNode, hash: string): Promise<{ blockNumber: string }> {
    return waitForBlock(
      t,
      async () => (await rpc<{ blockNumber: string }>(t.url, 'eth_getTransactionReceipt', [hash])).result,
      20_000,
      'receipt',
    )
  }

  it('commits the first transaction after a clean restart without waiting for the empty-block interval', async () => {
    current = await startTestNode({ flags })
    home = current.home
    const first = await rpc<string>(current.url, 'eth_sendRawTransaction', [await signTransfer()])
    await committedReceipt(current, first.result!)
    await current.stop()

    current = await startTestNode({ home, flags })
    const again = await rpc<string>(current.url, 'eth_sendRawTransaction', [await signTransfer()])
    expect(again.error).toBeUndefined()
    await committedReceipt(current, again.result!)
  })

  it('commits a transaction that arrived while consensus was starting (RPC open, WAL not yet replayed)', async () => {
    await current!.stop()
    const raw = await signTransfer()
    current = await startTestNode({
      home: home!,
      flags,
      beforeStart: (node) => {
        // The EVM RPC opens before consensus starts: a transaction can reach the pool before the engine listens.
        const engine = node.components.engine
        const start = engine.start.bind(engine)
        engine.start = async () => {
          await node.components.pool.add(getBytes(raw))
          await start()
        }
      },
    })
    await committedReceipt(current, keccak256(raw))
  })
})
