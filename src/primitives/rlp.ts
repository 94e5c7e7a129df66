/**
 * RLP encoding (the Yellow Paper's appendix B) in two passes: the first converts the leaves and adds up
 * every list's payload length, the second writes headers and bytes into one array of the final size.
 * @ethereumjs/rlp's `encode` makes an array per item and concatenates them at every level (with
 * lengths through hex strings); this gives its bytes 3-5 times faster. The installed library's `encode`
 * is this encoder too, in JavaScript with the library's own conversion of leaves (patches/@ethereumjs/rlp.mjs;
 * test/unit/evm/state/ethereumjs-speedups.test.ts compares them).
 */

export type RlpInput = Uint8Array | readonly RlpInput[]

/** Converts a leaf that is not a byte array (a number, a string...) as the caller's encoding does. */
export type RlpLeafBytes = (leaf: unknown) => Uint8Array

const bytesOnly: RlpLeafBytes = (leaf) => {
  throw new TypeError(`RLP: a leaf must be a Uint8Array, got ${typeof leaf}`)
}

/** The encoding of `input`; leaves that are not byte arrays go through `toBytes`. */
export function encodeRlp(input: RlpInput): Uint8Array
export function encodeRlp(input: unknown, toBytes: RlpLeafBytes): Uint8Array
export function encodeRlp(input: unknown, toBytes: RlpLeafBytes = bytesOnly): Uint8Array {
  // In pre-order: a list's payload length, or a leaf's bytes. Writing them in order is the encoding.
  const plan: (number | Uint8Array)[] = []
  const out = new Uint8Array(measure(input, plan, toBytes))
  let pos = 0
  for (const entry of plan) {
    if (typeof entry === 'number') pos = writeHeader(out, pos, entry, 0xc0)
    else if (entry.length === 1 && entry[0]! < 0x80) out[pos++] = entry[0]!
    else {
      pos = writeHeader(out, pos, entry.length, 0x80)
      out.set(entry, pos)
      pos += entry.length
    }
  }
  return out
}

/** The encoded length of `input`, recording its plan. */
function measure(input: unknown, plan: (number | Uint8Array)[], toBytes: RlpLeafBytes): number {
  if (Array.isArray(input)) {
    const at = plan.length
    plan.push(0)
    let payload = 0
    for (let i = 0; i < input.length; i++) payload += measure(input[i], plan, toBytes)
    plan[at] = payload
    return headerLength(payload) + payload
  }
  const bytes = input instanceof Uint8Array ? input : toBytes(input)
  plan.push(bytes)
  return bytes.length === 1 && bytes[0]! < 0x80 ? 1 : headerLength(bytes.length) + bytes.length
}

/** Bytes of the header of a string or list of `length` bytes. */
function headerLength(length: number): number {
  if (length < 56) return 1
  let n = 1
  for (let rest = Math.floor(length / 256); rest > 0; rest = Math.floor(rest / 256)) n++
  return 1 + n
}

function writeHeader(out: Uint8Array, pos: number, length: number, offset: number): number {
  if (length < 56) {
    out[pos] = offset + length
    return pos + 1
  }
  const n = headerLength(length) - 1
  out[pos] = offset + 55 + n
  for (let i = n, rest = length; i >= 1; i--, rest = Math.floor(rest / 256)) out[pos + i] = rest % 256
  return pos + 1 + n
}
