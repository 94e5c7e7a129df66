/**
 * Keccak-256 in WebAssembly, the module generated here at load time (no binary blob, no toolchain):
 * keccak-f[1600] on 64-bit lanes held in locals, with native 64-bit rotations. On this machine it
 * hashes 32–532 bytes in ~1.5–3 µs where @noble/hashes takes ~23–53 µs (and the native `keccak` addon
 * ~8 µs through its stream API); keccak is on every hot path (trie nodes, tx hashes, blooms, SHA3).
 *
 * Memory: bytes [0, 32) receive the digest, [RC_OFFSET, +192) hold the round constants, the padded
 * input starts at INPUT_OFFSET. `keccak(blocks)` absorbs `blocks` 136-byte blocks from a zero state.
 * Rotation offsets and round constants are computed from the Keccak reference definitions (the ρ step
 * walk and the LFSR rc(t)), not typed in; the tests compare against @noble/hashes.
 */

/** Bytes absorbed per permutation: (1600 − 2 × 256) / 8. */
const RATE = 136
const RC_OFFSET = 256
const INPUT_OFFSET = 512
const PAGE = 65_536

/** rc(t) of the Keccak reference: the LFSR x^8 + x^6 + x^5 + x^4 + 1. */
function rcBit(t: number): number {
  let r = 1
  for (let i = 0; i < t % 255; i++) {
    r <<= 1
    if (r & 0x100) r ^= 0x171
  }
  return r & 1
}

/** The 24 round constants of ι. */
function roundConstants(): bigint[] {
  const out: bigint[] = []
  for (let round = 0; round < 24; round++) {
    let rc = 0n
    for (let j = 0; j < 7; j++) if (rcBit(j + 7 * round)) rc |= 1n << BigInt((1 << j) - 1)
    out.push(rc)
  }
  return out
}

/** ρ rotation of lane x + 5y: the walk (x, y) → (y, 2x + 3y) from (1, 0) with offsets (t+1)(t+2)/2. */
function rotations(): number[] {
  const r = new Array<number>(25).fill(0)
  let x = 1
  let y = 0
  for (let t = 0; t < 24; t++) {
    r[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64
    ;[x, y] = [y, (2 * x + 3 * y) % 5]
  }
  return r
}

// ─── a minimal WebAssembly encoder ───────────────────────────────────────

function uleb(n: number): number[] {
  const out: number[] = []
  do {
    let byte = n & 0x7f
    n >>>= 7
    if (n !== 0) byte |= 0x80
    out.push(byte)
  } while (n !== 0)
  return out
}

function sleb(n: number): number[] {
  const out: number[] = []
  for (;;) {
    const byte = n & 0x7f
    n >>= 7
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte]
    out.push(byte | 0x80)
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body]
}

const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  void: 0x40,
  localGet: 0x20,
  localSet: 0x21,
  i64Load: 0x29,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Eqz: 0x45,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Shl: 0x74,
  i64And: 0x83,
  i64Xor: 0x85,
  i64Rotl: 0x89,
} as const

/** The body of `keccak(blocks: i32)`: locals 0 blocks, 1 round, 2 ptr, 3.. the i64 lanes. */
function keccakBody(): number[] {
  const BLOCKS = 0
  const ROUND = 1
  const PTR = 2
  const A = 3 // a[0..24]
  const B = A + 25 // b[0..24]
  const C = B + 25 // c[0..4]
  const D = C + 5 // d[0..4]
  const rot = rotations()
  const code: number[] = []
  const get = (i: number): void => void code.push(op.localGet, ...uleb(i))
  const set = (i: number): void => void code.push(op.localSet, ...uleb(i))
  const xorInto = (target: number, source: number): void => {
    get(target)
    get(source)
    code.push(op.i64Xor)
    set(target)
  }

  code.push(op.i32Const, ...sleb(INPUT_OFFSET))
  set(PTR)
  code.push(op.block, op.void, op.loop, op.void)
  get(BLOCKS)
  code.push(op.i32Eqz, op.brIf, 1)
  // absorb one block
  for (let i = 0; i < RATE / 8; i++) {
    get(PTR)
    code.push(op.i64Load, 3, ...uleb(8 * i))
    get(A + i)
    code.push(op.i64Xor)
    set(A + i)
  }
  code.push(op.i32Const, 0)
  set(ROUND)
  code.push(op.loop, op.void)
  // θ
  for (let x = 0; x < 5; x++) {
    get(A + x)
    for (let y = 1; y < 5; y++) {
      get(A + x + 5 * y)
      code.push(op.i64Xor)
    }
    set(C + x)
  }
  for (let x = 0; x < 5; x++) {
    get(C + ((x + 4) % 5))
    get(C + ((x + 1) % 5))
    code.push(op.i64Const, 1, op.i64Rotl, op.i64Xor)
    set(D + x)
  }
  for (let i = 0; i < 25; i++) xorInto(A + i, D + (i % 5))
  // ρ and π: b[y, 2x + 3y] = rotl(a[x, y], r[x, y])
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) {
      get(A + x + 5 * y)
      if (rot[x + 5 * y]! !== 0) code.push(op.i64Const, ...sleb(rot[x + 5 * y]!), op.i64Rotl)
      set(B + y + 5 * ((2 * x + 3 * y) % 5))
    }
  }
  // χ: a[x, y] = b[x, y] ^ (~b[x+1, y] & b[x+2, y])
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      get(B + x + 5 * y)
      get(B + ((x + 1) % 5) + 5 * y)
      code.push(op.i64Const, ...sleb(-1), op.i64Xor)
      get(B + ((x + 2) % 5) + 5 * y)
      code.push(op.i64And, op.i64Xor)
      set(A + x + 5 * y)
    }
  }
  // ι: a[0] ^= RC[round]
  get(ROUND)
  code.push(op.i32Const, 3, op.i32Shl, op.i64Load, 3, ...uleb(RC_OFFSET))
  get(A)
  code.push(op.i64Xor)
  set(A)
  get(ROUND)
  code.push(op.i32Const, 1, op.i32Add)
  set(ROUND)
  get(ROUND)
  code.push(op.i32Const, 24, op.i32LtU, op.brIf, 0, op.end)
  // next block
  get(PTR)
  code.push(op.i32Const, ...sleb(RATE), op.i32Add)
  set(PTR)
  get(BLOCKS)
  code.push(op.i32Const, 1, op.i32Sub)
  set(BLOCKS)
  code.push(op.br, 0, op.end, op.end)
  // squeeze: the first four lanes are the digest
  for (let i = 0; i < 4; i++) {
    code.push(op.i32Const, 0)
    get(A + i)
    code.push(op.i64Store, 3, ...uleb(8 * i))
  }
  code.push(op.end)
  const locals = [...uleb(2), ...uleb(2), 0x7f, ...uleb(60), 0x7e] // 2 × i32, 60 × i64
  const body = [...locals, ...code]
  return [...uleb(body.length), ...body]
}

function moduleBytes(): Uint8Array {
  const I32 = 0x7f
  const type = section(1, [1, 0x60, 1, I32, 0])
  const func = section(3, [1, 0])
  const memory = section(5, [1, 0x00, 1])
  const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')]
  const exports = section(7, [2, ...name('keccak'), 0x00, 0, ...name('memory'), 0x02, 0])
  const code = section(10, [1, ...keccakBody()])
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...type, ...func, ...memory, ...exports, ...code])
}

/** The part of the WebAssembly global used here (the project's `lib` has no WebAssembly types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object) => { exports: Record<string, unknown> }
}

interface WasmMemory {
  buffer: ArrayBuffer
  grow(pages: number): number
}

/** A Keccak-256 function over the generated module, or undefined when WebAssembly is unavailable. */
export function createWasmKeccak256(): ((data: Uint8Array) => Uint8Array) | undefined {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly
  let exports: Record<string, unknown>
  try {
    exports = new wasm!.Instance(new wasm!.Module(moduleBytes())).exports
  } catch {
    return undefined
  }
  const run = exports.keccak as (blocks: number) => void
  const memory = exports.memory as WasmMemory
  let heap = new Uint8Array(memory.buffer)
  const constants = new DataView(memory.buffer, RC_OFFSET, 192)
  roundConstants().forEach((rc, i) => {
    constants.setBigUint64(8 * i, rc, true)
  })
  return (data: Uint8Array): Uint8Array => {
    const blocks = Math.floor(data.length / RATE) + 1
    const end = INPUT_OFFSET + blocks * RATE
    if (end > heap.length) {
      memory.grow(Math.ceil((end - heap.length) / PAGE))
      heap = new Uint8Array(memory.buffer)
    }
    heap.set(data, INPUT_OFFSET)
    heap.fill(0, INPUT_OFFSET + data.length, end)
    heap[INPUT_OFFSET + data.length]! ^= 0x01
    heap[end - 1]! ^= 0x80
    run(blocks)
    return heap.slice(0, 32)
  }
}
