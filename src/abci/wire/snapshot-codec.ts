/** `Snapshot{height=1, format=2, chunks=3, hash=4, metadata=5}`: one state-sync snapshot. */
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'
import type { Snapshot } from './messages.js'

export function encodeSnapshot(s: Snapshot): Uint8Array {
  return new ProtoWriter().uint(1, s.height).uint(2, s.format).uint(3, s.chunks).bytes(4, s.hash).bytes(5, s.metadata).finish()
}

export function decodeSnapshot(body: Uint8Array): Snapshot {
  const s: Snapshot = { height: 0n, format: 0, chunks: 0, hash: new Uint8Array(), metadata: new Uint8Array() }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) s.height = r.uint64()
    else if (r.field === 2) s.format = r.uint32()
    else if (r.field === 3) s.chunks = r.uint32()
    else if (r.field === 4) s.hash = r.bytes()
    else if (r.field === 5) s.metadata = r.bytes()
    else r.skip()
  }
  return s
}
