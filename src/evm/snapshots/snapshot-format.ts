/**
 * Snapshot format 1 of the EVM application: what each chunk holds and how a snapshot names its chunks.
 *
 * - Chunk 0 is the application record (app-record.ts): the head, the chain parameters, the
 *   validator-admin contract's copy of the validator set and the EVM blocks BLOCKHASH can reach.
 * - Chunks 1..n hold the state at the snapshot's height: RLP `[[kind, bytes], ...]`, each entry one
 *   account-trie node, storage-trie node or contract code, each once and after the entry
 *   that refers to it (state-export.ts). Every entry is named by its keccak256, so it checks itself.
 * - A chunk's hash is its SHA-256; the snapshot `hash` is the SHA-256 of the chunk hashes in order,
 *   and `metadata` lists them as the Cosmos SDK does (`Metadata{repeated bytes chunk_hashes = 1}`),
 *   so each chunk can be checked alone as it arrives.
 */
import { RLP } from '@ethereumjs/rlp'
import { sha256 } from '../../crypto/index.js'
import { Prefix } from '../../db/prefixes.js'
import { concatBytes, equalBytes, latin1 } from '../../primitives/hex.js'
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'
import { TrieRef, visitTrieNodeRefs } from '../state/trie-node-refs.js'

/** The one format this application writes and restores. */
export const SNAPSHOT_FORMAT = 1
/**
 * Target size of a state chunk (bytes): a few MB, well under CometBFT's 16 MB cap on a chunk and
 * small enough that a corrupted one costs little to fetch again.
 */
export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024

/** What a state entry is, and so how it is stored and what it refers to. */
export const EntryKind = { AccountNode: 0, StorageNode: 1, Code: 2 } as const
export type EntryKind = (typeof EntryKind)[keyof typeof EntryKind]

/** One state entry of a chunk: a trie node or a contract's code. */
export interface StateEntry {
  kind: EntryKind
  bytes: Uint8Array
}

/** A reference to a state entry: its keccak256 and kind. */
export interface StateRef {
  hash: Uint8Array
  kind: EntryKind
}

/** The key prefix ethereumjs gives code in the trie database ("c"). */
const CODE_PREFIX = 0x63

/** A map key for a reference (kind and hash). */
export function refId(kind: EntryKind, hash: Uint8Array): string {
  return String(kind) + latin1(hash)
}

/** The database key of an entry, as the trie database stores it (state/trie-db.ts): `trie ‖ hash`, code `trie ‖ "c" ‖ hash`. */
export function entryKey(kind: EntryKind, hash: Uint8Array): Uint8Array {
  const code = kind === EntryKind.Code
  const key = new Uint8Array((code ? 2 : 1) + hash.length)
  key[0] = Prefix.trie
  if (code) key[1] = CODE_PREFIX
  key.set(hash, code ? 2 : 1)
  return key
}

/**
 * Adds to `out` the entries the entry `bytes` of `kind` refers to (state/trie-node-refs.ts; none for
 * code): a node's children are of its own trie. Throws on a malformed node.
 */
export function collectRefs(kind: EntryKind, bytes: Uint8Array, out: StateRef[]): void {
  if (kind === EntryKind.Code) return
  visitTrieNodeRefs(bytes, (ref, hash) => {
    if (ref === TrieRef.Child) return void out.push({ hash, kind })
    if (kind === EntryKind.StorageNode) throw new Error('a storage trie leaf holds an account')
    out.push({ hash, kind: ref === TrieRef.StorageRoot ? EntryKind.StorageNode : EntryKind.Code })
  })
}

export function hashChunk(chunk: Uint8Array): Uint8Array {
  return sha256(chunk)
}

/** The snapshot hash over its chunks' hashes. */
export function hashSnapshot(chunkHashes: readonly Uint8Array[]): Uint8Array {
  return sha256(concatBytes(...chunkHashes))
}

export function encodeMetadata(chunkHashes: readonly Uint8Array[]): Uint8Array {
  const w = new ProtoWriter()
  for (const h of chunkHashes) w.bytes(1, h)
  return w.finish()
}

/** The chunk hashes of `metadata`, or undefined when it is not a list of 32-byte hashes. */
export function decodeMetadata(metadata: Uint8Array): Uint8Array[] | undefined {
  const hashes: Uint8Array[] = []
  try {
    const r = new ProtoReader(metadata)
    while (r.next()) {
      if (r.field !== 1) return undefined
      const h = r.bytes()
      if (h.length !== 32) return undefined
      hashes.push(h)
    }
  } catch {
    return undefined
  }
  return hashes
}

/** Whether `metadata` lists `chunks` hashes whose snapshot hash is `hash`. */
export function metadataMatches(chunks: number, hash: Uint8Array, chunkHashes: readonly Uint8Array[] | undefined): boolean {
  return chunkHashes !== undefined && chunkHashes.length === chunks && equalBytes(hashSnapshot(chunkHashes), hash)
}

/**
 * Builds a state chunk entry by entry: each entry is encoded as it is added, so the chunk costs one
 * copy at the end instead of one long encoding that would hold the event loop.
 */
export class StateChunkBuilder {
  private items: Uint8Array[] = []
  private length = 0

  add(entry: StateEntry): void {
    const item = RLP.encode([entry.kind, entry.bytes])
    this.items.push(item)
    this.length += item.length
  }

  /** Encoded bytes of the entries so far. */
  get size(): number {
    return this.length
  }

  /** The chunk of the entries added since the last one: RLP `[[kind, bytes], ...]`. */
  finish(): Uint8Array {
    const header = encodeListHeader(this.length)
    const chunk = new Uint8Array(header.length + this.length)
    chunk.set(header)
    let at = header.length
    // One copy each: a chunk holds more entries than a spread call can pass.
    for (const item of this.items) {
      chunk.set(item, at)
      at += item.length
    }
    this.items = []
    this.length = 0
    return chunk
  }
}

/** RLP's header of a list whose items take `length` bytes. */
function encodeListHeader(length: number): Uint8Array {
  /** RLP: a list of up to 55 bytes has a one-byte header (0xc0 + length), longer ones 0xf7 + the length's byte count. */
  if (length <= 55) return new Uint8Array([0xc0 + length])
  const digits: number[] = []
  for (let n = length; n > 0; n = Math.floor(n / 256)) digits.unshift(n % 256)
  return new Uint8Array([0xf7 + digits.length, ...digits])
}

/** The entries of a state chunk; throws on a malformed one. */
export function decodeStateChunk(chunk: Uint8Array): StateEntry[] {
  const list = RLP.decode(chunk)
  if (!Array.isArray(list)) throw new Error('state chunk is not a list')
  return list.map((item) => {
    if (!Array.isArray(item) || item.length !== 2) throw new Error('malformed state chunk entry')
    const [kind, bytes] = item
    if (!(kind instanceof Uint8Array) || !(bytes instanceof Uint8Array)) throw new Error('malformed state chunk entry')
    const k = kind.length === 0 ? 0 : kind.length === 1 ? kind[0]! : -1
    if (k !== EntryKind.AccountNode && k !== EntryKind.StorageNode && k !== EntryKind.Code) throw new Error(`unknown state entry kind ${k}`)
    return { kind: k, bytes }
  })
}
