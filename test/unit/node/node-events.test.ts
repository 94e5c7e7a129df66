/**
 * The node's one event map (node-events.ts): a committed height is published once, after both of its
 * writes, in one order for every surface: the EVM block (newHeads, logs, filters), then the consensus
 * events (NewBlock, NewBlockHeader, NewBlockEvents, Tx per transaction). When the EVM block is
 * announced its receipt is readable already.
 */
import { Wallet, keccak256 } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../../src/keystore/dev-accounts.js'
import { hexToBytes } from '../../../src/primitives/hex.js'
import { rpc, startTestNode, type TestNode } from '../../helpers/dev-node.js'

describe('the events of a committed height', () => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode()
  })
  afterAll(() => t.destroy())

  it('come in one order, the EVM block first, once its receipts are readable', async () => {
    const [sender, recipient] = devAccounts(2)
    const raw = await new Wallet(sender!.privateKey).signTransaction({
      type: 2,
      chainId: 31337n,
      nonce: 0,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      to: recipient!.address,
      value: 1n,
    })
    const hash = hexToBytes(keccak256(raw))
    const { events, components } = t.node
    const seen: string[] = []
    let receiptAtEvmBlock: Promise<unknown> | undefined
    const done = new Promise<number>((resolve) => {
      let height = 0
      const offs = [
        events.on('EvmBlock', (e) => {
          if (e.transactions.length === 0) return
          height = e.block.number
          seen.push('EvmBlock')
          receiptAtEvmBlock = components.app.getReceipt(hash)
        }),
        events.on('NewBlock', (e) => {
          if (e.block.header.height === height) seen.push('NewBlock')
        }),
        events.on('NewBlockHeader', (e) => {
          if (e.header.height === height) seen.push('NewBlockHeader')
        }),
        events.on('NewBlockEvents', (e) => {
          if (e.height === height) seen.push('NewBlockEvents')
        }),
        events.on('Tx', (e) => {
          if (e.height !== height) return
          seen.push('Tx')
          for (const off of offs) off()
          resolve(height)
        }),
      ]
    })
    expect((await rpc(t.url, 'eth_sendRawTransaction', [raw])).error).toBeUndefined()
    const height = await done
    expect(seen).toEqual(['EvmBlock', 'NewBlock', 'NewBlockHeader', 'NewBlockEvents', 'Tx'])
    expect(await receiptAtEvmBlock).toMatchObject({ blockNumber: height })
  })
})
