/**
 * A transaction whose fee cap is below the next block's base fee (issue 27, severe 2). The pool keeps it
 * pending, as geth's legacypool does, but no proposal can include it, so it must not count as a
 * transaction waiting: a node that waits for transactions (`--dev`'s interval, or
 * `create_empty_blocks = false`) stays at its height instead of making empty blocks back to back.
 * It is mined once it can pay: replaced with a 10% bump, or when empty blocks lower the base fee to it.
 *
 * The decision is observed, not timed: the pool's txs-available signal is synchronous with the
 * admission, so once the engine's queue has drained after eth_sendRawTransaction answered (or a block
 * came first), a node that took the transaction as waiting has left round 0's NewRound step.
 */
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReceiptJson } from '../../src/api/eth/format.js'
import { RoundStep } from '../../src/consensus/round-step.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, waitForBlock, type StartTestNodeOptions, type TestNode } from '../helpers/dev-node.js'

const CHAIN_ID = 31337n
const [A, B] = devAccounts(2).map((a) => new Wallet(a.privateKey))

/** Signs a value transfer from `wallet` with the given fee cap and tip (wei). */
function sign(wallet: Wallet, nonce: number, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): Promise<string> {
  return wallet.signTransaction({
    type: 2,
    chainId: CHAIN_ID,
    nonce,
    gasLimit: 21_000n,
    maxFeePerGas,
    maxPriorityFeePerGas,
    to: B!.address,
    value: 1n,
  })
}

async function send(t: TestNode, raw: string): Promise<string> {
  const reply = await rpc<string>(t.url, 'eth_sendRawTransaction', [raw])
  if (reply.error) throw new Error(`eth_sendRawTransaction: ${reply.error.message}`)
  return reply.result!
}

function receipt(t: TestNode, hash: string): Promise<ReceiptJson> {
  return waitForBlock(
    t,
    async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [hash])).result,
    20_000,
    `receipt of ${hash}`,
  )
}

/**
 * Resolves once the engine waits for transactions at round 0 of the next height: checked with its queue
 * drained, now and after each block (the first heights are proof blocks, which do not wait).
 */
function waitUntilWaitingForTxs(t: TestNode): Promise<true> {
  const engine = t.node.components.engine
  return waitForBlock(
    t,
    async () => {
      await engine.drained()
      const rs = engine.getRoundState()
      return rs.round === 0 && rs.step === RoundStep.NewRound && rs.height === engine.height + 1
    },
    20_000,
    'the engine to wait for transactions',
  )
}

const WAITING_NODES: [string, StartTestNodeOptions][] = [
  // --dev: an empty block only after the interval, here far longer than the test.
  ['a dev node', { flags: { 'consensus.create_empty_blocks_interval': '10m' } }],
  // A non-dev node set to make no empty blocks at all (CometBFT create_empty_blocks = false, no interval).
  [
    'a non-dev node without empty blocks',
    { dev: false, flags: { 'consensus.create_empty_blocks': false, 'consensus.create_empty_blocks_interval': '0s' } },
  ],
]

describe.each(WAITING_NODES)('a fee cap below the base fee, on %s', (_name, options) => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode(options)
  })
  afterAll(() => t.destroy())

  it('is pooled but makes no block; a bumped replacement is mined', async () => {
    const { engine, pool, app } = t.node.components
    await waitUntilWaitingForTxs(t)
    const height = engine.height
    let signals = 0
    const off = pool.onTxsAvailable(() => signals++)
    try {
      // The transaction: 1 wei, below any base fee the chain can reach (it never falls under 7 wei).
      const underpriced = await send(t, await sign(A!, 0, 1n, 1n))
      expect((await rpc(t.url, 'txpool_status')).result).toEqual({ pending: '0x1', queued: '0x0' })
      // Everything the admission set off handled, or a block: a node taking the tx as waiting makes one at once.
      const nextBlock = new Promise<void>((resolve) => {
        const stop = engine.events.on('NewBlock', () => {
          stop()
          resolve()
        })
      })
      await Promise.race([engine.drained(), nextBlock])
      expect(signals).toBe(0)
      expect(engine.height).toBe(height)
      expect(engine.getRoundState()).toMatchObject({ height: height + 1, round: 0, step: RoundStep.NewRound })
      expect((await rpc(t.url, 'eth_getTransactionByHash', [underpriced])).result).toMatchObject({ blockNumber: null })

      const baseFee = app.nextBaseFee()
      const replacement = await send(t, await sign(A!, 0, 2n * baseFee, 2n))
      expect(signals).toBe(1)
      expect((await receipt(t, replacement)).status).toBe('0x1')
      expect((await rpc(t.url, 'txpool_status')).result).toEqual({ pending: '0x0', queued: '0x0' })
    } finally {
      off()
    }
  })
})

describe('a fee cap below the base fee, as empty blocks lower it', () => {
  let t: TestNode
  beforeAll(async () => {
    // The test preset's one empty block a second: each lowers an idle chain's base fee by 1/8 (EIP-1559).
    t = await startTestNode()
  })
  afterAll(() => t.destroy())

  it('is mined in the first block whose base fee it can pay', async () => {
    const { app } = t.node.components
    await waitUntilWaitingForTxs(t)
    const baseFee = app.nextBaseFee()
    const hash = await send(t, await sign(A!, 0, baseFee - 1n, 1n))
    const mined = await receipt(t, hash)
    const block = (await rpc<{ baseFeePerGas: string }>(t.url, 'eth_getBlockByNumber', [mined.blockNumber, false])).result!
    expect(BigInt(block.baseFeePerGas)).toBeLessThan(baseFee)
  })
})
