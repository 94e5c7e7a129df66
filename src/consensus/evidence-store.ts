/**
 * The evidence pool's records in the node's LevelDB (CometBFT keeps them apart, in `data/evidence.db`, keyed
 * the same way: kind, height, hash): under `Prefix.evidence`, `0x01 ‖ height ‖ hash` → the pending evidence's protobuf, and
 * `0x00 ‖ height ‖ hash` → the height of the block that committed it (kept so it is refused again).
 * Heights are 8-byte big-endian, so pending evidence iterates oldest first.
 */
import { decodeEvidence, encodeEvidence } from '../comet/encoding.js'
import type { DuplicateVoteEvidence } from '../comet/types.js'
import { sha256 } from '../crypto/index.js'
import type { Database } from '../db/database.js'
import type { WriteStage } from '../db/write-stage.js'
import { Prefix, prefixEnd, prefixedKey } from '../db/prefixes.js'
import { bytesToHex } from '../primitives/hex.js'

/** Sub-keys under Prefix.evidence (CometBFT `baseKeyCommitted`, `baseKeyPending`). */
const Key = { committed: 0x00, pending: 0x01 } as const

/** One evidence with what the store and the pool derive from it once. */
export interface EvidenceRecord {
  ev: DuplicateVoteEvidence
  /** The concrete protobuf (`ev.Bytes()`). */
  bytes: Uint8Array
  /** height ‖ hash: the key suffix, unique per evidence. */
  suffix: Uint8Array
  /** Hex of `suffix`: map key, sorts as the database does. */
  id: string
}

export function evidenceRecord(ev: DuplicateVoteEvidence): EvidenceRecord {
  const bytes = encodeEvidence(ev)
  const suffix = new Uint8Array(8 + 32)
  new DataView(suffix.buffer).setBigUint64(0, BigInt(ev.voteA.height))
  suffix.set(sha256(bytes), 8)
  return { ev, bytes, suffix, id: bytesToHex(suffix) }
}

export class EvidenceStore {
  constructor(private readonly db: Database) {}

  /** Every pending evidence, oldest first. */
  async loadPending(): Promise<EvidenceRecord[]> {
    const start = prefixedKey(Prefix.evidence, new Uint8Array([Key.pending]))
    const out: EvidenceRecord[] = []
    for await (const [, value] of this.db.iterate({ gte: start, lt: prefixEnd(start) })) out.push(evidenceRecord(decodeEvidence(value)))
    return out
  }

  /** Writes now: pending evidence arrives between heights (RPC, conflicting votes). */
  async savePending(r: EvidenceRecord): Promise<void> {
    await this.db.put(key(Key.pending, r), r.bytes)
  }

  async deletePending(r: EvidenceRecord): Promise<void> {
    await this.db.del(key(Key.pending, r))
  }

  /** Stages, into the engine's stage, the move of block evidence from pending to committed. */
  stageCommitted(stage: WriteStage, r: EvidenceRecord, blockHeight: number): void {
    const value = new Uint8Array(8)
    new DataView(value.buffer).setBigUint64(0, BigInt(blockHeight))
    stage.del(key(Key.pending, r))
    stage.put(key(Key.committed, r), value)
  }

  /** Sees staged writes too, so evidence being committed already counts. */
  async isCommitted(r: EvidenceRecord): Promise<boolean> {
    return (await this.db.get(key(Key.committed, r))) !== undefined
  }
}

function key(sub: number, r: EvidenceRecord): Uint8Array {
  const suffix = new Uint8Array(1 + r.suffix.length)
  suffix[0] = sub
  suffix.set(r.suffix, 1)
  return prefixedKey(Prefix.evidence, suffix)
}
