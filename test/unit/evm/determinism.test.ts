/**
 * Determinism: the same 1,000 transactions in the same blocks, replayed into a new home, give the same
 * app hash, EVM block hash and receipts at every height. The replay runs without the trie-node cache
 * and reopens its database halfway, so no cache, memo or in-memory state of the first run can be what
 * makes the two agree.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createAddress } from '../../../src/evm/store/evm-records.js'
import { privateKeyToAddress } from '../../../src/crypto/index.js'
import { bytesToHex } from '../../../src/primitives/hex.js'
import { DEV_KEY, ETHER, KEY2, STORE_RUNTIME, createHarness, defaultAppState, deployCode, sign1559, word, type Harness } from './helpers.js'

const TXS = 1_000
const BLOCKS = 10
const hex = bytesToHex

/** What a height leaves that clients and consensus see. */
interface HeightDigest {
  appHash: string
  blockHash: string
  receiptsRoot: string
  stateRoot: string
  codes: number[]
}

async function run(h: Harness, blocks: Uint8Array[][], reopenAt?: number): Promise<HeightDigest[]> {
  const out: HeightDigest[] = []
  for (const [i, txs] of blocks.entries()) {
    if (i === reopenAt) await h.reopen()
    const resp = await h.finalize(txs)
    const block = (await h.app.getBlock(h.height - 1))!
    out.push({
      appHash: hex(resp.appHash),
      blockHash: hex(block.hash),
      receiptsRoot: hex(block.receiptsRoot),
      stateRoot: hex(block.stateRoot),
      codes: resp.txResults.map((r) => r.code),
    })
  }
  return out
}

describe('replaying 1,000 transactions into a new home', () => {
  const harnesses: Harness[] = []
  afterAll(async () => {
    for (const h of harnesses) await h.close()
  })

  it('gives the same app hash, block hash, receipts root and state root at every height', async () => {
    // Two senders: one deploys a storage contract and writes slots through it, one pays 300 recipients.
    const keys = [DEV_KEY, KEY2]
    const recipients = Array.from({ length: 300 }, (_, i) => `0x${(0xa000 + i).toString(16).padStart(40, '0')}` as const)
    const first = await createHarness({ appState: defaultAppState() })
    harnesses.push(first)
    const common = first.app.common
    const contract = hex(createAddress(privateKeyToAddress(DEV_KEY), 0n)) as `0x${string}`
    const nonces = [0n, 0n]
    const txs: Uint8Array[] = []
    for (let i = 0; i < TXS; i++) {
      const sender = i % 2
      const nonce = nonces[sender]!++
      if (sender === 0 && nonce === 0n) txs.push(sign1559(common, keys[0]!, { nonce, data: deployCode(STORE_RUNTIME), gasLimit: 300_000n }))
      else if (sender === 0) txs.push(sign1559(common, keys[0]!, { nonce, to: contract, data: word(BigInt(i)), gasLimit: 100_000n }))
      else txs.push(sign1559(common, keys[1]!, { nonce, to: recipients[i % recipients.length]!, value: ETHER / 1000n + BigInt(i) }))
    }
    const perBlock = TXS / BLOCKS
    const blocks = Array.from({ length: BLOCKS }, (_, b) => txs.slice(b * perBlock, (b + 1) * perBlock))

    const live = await run(first, blocks)
    expect(live.flatMap((d) => d.codes).every((code) => code === 0)).toBe(true)
    expect(new Set(live.map((d) => d.appHash)).size).toBe(BLOCKS)

    const replay = await createHarness({ appState: defaultAppState(), app: { trieNodeCacheBytes: 0 } })
    harnesses.push(replay)
    expect(await run(replay, blocks, BLOCKS / 2)).toEqual(live)
  }, 120_000)
})
