/**
 * The well-known protobuf types and enum checks the ABCI messages share: `google.protobuf.Timestamp` and
 * `Duration` (gogoproto `stdtime`/`stdduration`: seconds=1, nanos=2), and enum values checked against their
 * declared set so a value our types cannot hold is refused rather than passed on.
 */
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'
import type { Timestamp } from '../../utils/time.js'

const NANOS_PER_SECOND = 1_000_000_000n

export function encodeTimestamp(t: Timestamp): Uint8Array {
  return new ProtoWriter().int(1, t.seconds).int(2, t.nanos).finish()
}

export function decodeTimestamp(body: Uint8Array): Timestamp {
  const t: Timestamp = { seconds: 0, nanos: 0 }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) t.seconds = r.int64Number()
    else if (r.field === 2) t.nanos = r.int32()
    else r.skip()
  }
  return t
}

/** A duration in nanoseconds as `google.protobuf.Duration` (nanos carry the sign of seconds). */
export function encodeDuration(ns: bigint): Uint8Array {
  return new ProtoWriter()
    .int(1, ns / NANOS_PER_SECOND)
    .int(2, ns % NANOS_PER_SECOND)
    .finish()
}

export function decodeDuration(body: Uint8Array): bigint {
  let seconds = 0n
  let nanos = 0n
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) seconds = r.int64()
    else if (r.field === 2) nanos = BigInt(r.int32())
    else r.skip()
  }
  return seconds * NANOS_PER_SECOND + nanos
}

/** Reads an enum field and checks it is one of `values` (an `as const` object of the enum). */
export function readEnum<V extends number>(r: ProtoReader, values: Record<string, V>, name: string): V {
  const v = r.int32()
  if (!Object.values(values).includes(v as V)) throw new Error(`ABCI: invalid ${name} ${v}`)
  return v as V
}
