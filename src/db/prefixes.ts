/**
 * Key prefixes of the node's LevelDB. Each store owns its prefix; keys are `prefix ‖ suffix`.
 * Heights in keys are 8-byte big-endian so that iteration is in height order.
 */
export const Prefix = {
  /** MPT nodes of the EVM state (key = node hash, or code-hash-prefixed code). */
  trie: 0x01,
  /** State pruning: reference counts of trie nodes and code, per-height journals (evm/state/prune-store.ts). */
  statePrune: 0x02,
  /**
   * The flat state: the head's accounts and storage slots keyed by hash, beside the trie, and the marker
   * saying which state root they are exact for (layout in evm/state/flat-keys.ts).
   */
  flat: 0x03,
  /** Consensus block by height. */
  block: 0x10,
  /** Commit for a height (the `last_commit` of height+1, or the seen commit for the head). */
  commit: 0x11,
  /** Seen commit of the latest height. */
  seenCommit: 0x12,
  /** Block hash → height. */
  blockHash: 0x13,
  /** FinalizeBlock results by height (tx results, events, validator updates, app hash). */
  blockResults: 0x14,
  /** Consensus state: validator sets and params by height, and the head state. */
  consensusState: 0x20,
  /** Evidence pool: pending evidence and the hashes of committed evidence (layout in consensus/evidence-store.ts). */
  evidence: 0x21,
  /** EVM view of a height: header fields, receipts. */
  evmBlock: 0x30,
  evmReceipts: 0x31,
  /** EVM tx hash → (height, index). */
  evmTxIndex: 0x32,
  /** Consensus tx hash (SHA-256) → (height, index). */
  cometTxIndex: 0x33,
  /** Log index: address/topic → heights. */
  logIndex: 0x34,
  /** The logs of a height (only heights with logs): what eth_getLogs reads per matching block. */
  evmLogs: 0x35,
  /** Consensus event index of tx_search / block_search: the kv indexer, layout in indexer/index-keys.ts. */
  eventIndex: 0x40,
  /** Single keys: head pointers, app metadata. */
  meta: 0xf0,
} as const

export function heightKey(prefix: number, height: number, ...rest: Uint8Array[]): Uint8Array {
  let len = 9
  for (const r of rest) len += r.length
  const key = new Uint8Array(len)
  key[0] = prefix
  new DataView(key.buffer).setBigUint64(1, BigInt(height))
  let off = 9
  for (const r of rest) {
    key.set(r, off)
    off += r.length
  }
  return key
}

export function prefixedKey(prefix: number, suffix: Uint8Array): Uint8Array {
  const key = new Uint8Array(1 + suffix.length)
  key[0] = prefix
  key.set(suffix, 1)
  return key
}

export function metaKey(name: string): Uint8Array {
  return prefixedKey(Prefix.meta, new TextEncoder().encode(name))
}

/** The first key after every key that starts with `prefix` (for iterator upper bounds). */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = prefix.slice()
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++
      return end.subarray(0, i + 1)
    }
  }
  return new Uint8Array([0xff, 0xff, 0xff, 0xff])
}
