/** The indexer's attribute keys: `attrKey` builds in one allocation the bytes of the composed layout. */
import { describe, expect, it } from 'vitest'
import { IndexKind, attrKey, attrPrefix, indexKey, u32, u64 } from '../../../src/indexer/index-keys.js'
import { concatBytes } from '../../../src/primitives/hex.js'

describe('attrKey', () => {
  it('is indexKey(kind, attrPrefix(tag, value), tail, u32(seq)) for tx and block attributes', () => {
    const txTail = concatBytes(u64(1_234_567), u32(42))
    const cases: [number, string, string, Uint8Array, number][] = [
      [IndexKind.txAttr, 'ethereum_tx.ethereumTxHash', '0xabc', txTail, 0],
      [IndexKind.txAttr, 'tx_log.txLog', '{"data":"0x","topics":["é→✓"]}', txTail, 70_000],
      [IndexKind.txAttr, 'message.sender', '', txTail, 0xfffffffe],
      [IndexKind.blockAttr, 'fee_market.base_fee', '1000000000', u64(9), 3],
    ]
    for (const [kind, tag, value, tail, seq] of cases)
      expect(attrKey(kind, tag, value, tail, seq)).toEqual(indexKey(kind, attrPrefix(tag, value), tail, u32(seq)))
  })
})
