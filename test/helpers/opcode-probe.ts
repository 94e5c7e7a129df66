/**
 * A contract that runs every opcode whose gas depends on memory or input (the ones the patched
 * interpreter steps synchronously, patches/@ethereumjs/evm.mjs) on operands from its calldata, and the
 * calldata of a grid of such operands: for comparing answers across builds and step paths.
 */

/**
 * Runtime code whose every opcode with a memory- or input-dependent gas cost (the handlers the bundle
 * runs synchronously) takes its operands from the calldata words [off, len, exp, revert]: MSTORE,
 * MLOAD, KECCAK256(off, len), EXP(2, exp), CALLDATACOPY to off + 64, CODECOPY, MCOPY(0x300, off, len),
 * LOG2(off, len), RETURNDATACOPY, MSTORE8 at off + 1, then RETURN(off, len), or REVERT(off, len) when
 * `revert` is not zero.
 */
export function opcodeProbeCode(): string {
  const word = (i: number) => [0x60, i * 32, 0x35] // PUSH1 i*32 CALLDATALOAD
  const code = [
    ...[0x60, 0xff, ...word(0), 0x52], // MSTORE(off, 0xff)
    ...[...word(0), 0x51, 0x50], // MLOAD(off), POP
    ...[...word(1), ...word(0), 0x20], // KECCAK256(off, len)
    ...[...word(2), 0x60, 0x02, 0x0a], // EXP(2, exp)
    ...[0x36, 0x60, 0x00, ...word(0), 0x60, 0x40, 0x01, 0x37], // CALLDATACOPY(off + 64, 0, CALLDATASIZE)
    ...[0x38, 0x60, 0x00, 0x61, 0x02, 0x00, 0x39], // CODECOPY(0x200, 0, CODESIZE)
    ...[...word(1), ...word(0), 0x61, 0x03, 0x00, 0x5e], // MCOPY(0x300, off, len)
    ...[...word(1), ...word(0), 0xa2], // LOG2(off, len, exp result, hash)
    ...[0x60, 0x00, 0x80, 0x80, 0x3e], // RETURNDATACOPY(0, 0, 0)
    ...[0x60, 0xee, ...word(0), 0x60, 0x01, 0x01, 0x53], // MSTORE8(off + 1, 0xee)
    ...[...word(1), ...word(0), ...word(3)],
  ]
  const revertAt = code.length + 4 // after PUSH1 target, JUMPI, RETURN
  code.push(0x60, revertAt, 0x57, 0xf3, 0x5b, 0xfd)
  const runtime = Buffer.from(code)
  const n = runtime.length
  // CODECOPY(0, 12, n) RETURN(0, n): the runtime follows these 12 bytes.
  return `0x${Buffer.from([0x60, n, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3]).toString('hex')}${runtime.toString('hex')}`
}

/** Calldata of 32-byte words. */
export const words = (...values: bigint[]) => `0x${values.map((v) => v.toString(16).padStart(64, '0')).join('')}`

/** Calldata across offsets and lengths (inside the first 1 KiB of memory, past it, far past it), exponents and revert flags. */
export const OPCODE_PROBE_OPERANDS: string[] = (
  [
    [0n, 0n],
    [31n, 33n],
    [4096n, 2000n],
    [1_000_000n, 64n],
  ] as const
).flatMap(([off, len]) => [255n, 2n ** 255n - 1n].flatMap((exp) => [0n, 1n].map((revert) => words(off, len, exp, revert))))
