/**
 * Waiting for transactions (create_empty_blocks_interval > 0, as `--dev`): after a burst, the node makes
 * the one proof block CometBFT makes (the app hash changed) and then waits again; stale txs-available
 * notifications from the burst must not make extra empty blocks.
 */
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RoundStep } from '../../src/consensus/round-step.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { BlockJson } from '../../src/api/eth/format.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'

describe('empty blocks while waiting for transactions', () => {
  let t: TestNode
  beforeAll(async () => {
    // Not a dev chain: that one makes no proof block (dev-mining.test.ts), a block per transaction.
    t = await startTestNode({ dev: false, flags: { 'consensus.create_empty_blocks_interval': '30s' } })
  })
  afterAll(() => t.destroy())

  it('makes only the proof block after a burst, then waits', async () => {
    const { engine, pool } = t.node.components
    const chainId = BigInt((await rpc<string>(t.url, 'eth_chainId')).result!)
    const sends: Promise<{ error?: unknown }>[] = []
    for (const account of devAccounts(4)) {
      const wallet = new Wallet(account.privateKey)
      for (let nonce = 0; nonce < 30; nonce++) {
        const raw = await wallet.signTransaction({
          type: 2,
          chainId,
          nonce,
          gasLimit: 21000n,
          maxFeePerGas: 10n ** 11n,
          maxPriorityFeePerGas: 10n ** 9n,
          to: wallet.address,
          value: 1n,
        })
        sends.push(rpc(t.url, 'eth_sendRawTransaction', [raw]))
      }
    }
    for (const reply of await Promise.all(sends)) expect(reply.error).toBeUndefined()
    await waitForBlock(t, () => pool.size() === 0, 20_000, 'the pool to drain')
    const head = async () => Number((await rpc(t.url, 'eth_blockNumber')).result)
    const txCounts = async (upTo: number) => {
      const counts: number[] = []
      for (let h = 1; h <= upTo; h++)
        counts.push((await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x' + h.toString(16), false])).result!.transactions.length)
      return counts
    }
    const counts = await txCounts(await head())
    expect(counts.reduce((a, b) => a + b, 0)).toBe(120)
    const lastWithTxs = counts.findLastIndex((n) => n > 0) + 1
    // The proof block (the app hash changed) comes at once...
    await waitForBlock(t, async () => (await head()) >= lastWithTxs + 1, 20_000, 'the proof block')
    // ...and then nothing until a tx or the 30 s interval (before the fix, stray empty blocks followed):
    // once everything queued is handled, the burst's stale notifications among it, the node waits in
    // round 0 of the next height. A node that did not wait would commit a block first.
    const nextBlock = new Promise<void>((resolve) => engine.events.on('NewBlock', () => resolve()))
    await Promise.race([engine.drained(), nextBlock])
    expect(await head()).toBe(lastWithTxs + 1)
    expect(engine.getRoundState()).toMatchObject({ height: lastWithTxs + 2, round: 0, step: RoundStep.NewRound })
  })
})
