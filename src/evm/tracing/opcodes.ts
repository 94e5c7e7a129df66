/**
 * What tracers need to know about opcodes, in geth's terms (core/vm/opcodes.go, jump_table.go):
 * the name geth prints, the stack items an opcode takes and leaves (for geth's stack error texts), and
 * the call-frame type an opcode opens. ethereumjs names 0x44 PREVRANDAO and every undefined byte
 * INVALID; geth prints DIFFICULTY and `opcode 0xc not defined`.
 */
import type { FrameType } from './hooks.js'

/** geth `params.StackLimit`. */
export const STACK_LIMIT = 1024

const NAMES = new Map<number, string>()
/** [inputs, outputs] of each defined opcode (Cancun). */
const ARITY = new Map<number, readonly [number, number]>()

function define(op: number, name: string, inputs: number, outputs: number): void {
  NAMES.set(op, name)
  ARITY.set(op, [inputs, outputs])
}

for (const [op, name, i, o] of [
  [0x00, 'STOP', 0, 0],
  [0x01, 'ADD', 2, 1],
  [0x02, 'MUL', 2, 1],
  [0x03, 'SUB', 2, 1],
  [0x04, 'DIV', 2, 1],
  [0x05, 'SDIV', 2, 1],
  [0x06, 'MOD', 2, 1],
  [0x07, 'SMOD', 2, 1],
  [0x08, 'ADDMOD', 3, 1],
  [0x09, 'MULMOD', 3, 1],
  [0x0a, 'EXP', 2, 1],
  [0x0b, 'SIGNEXTEND', 2, 1],
  [0x10, 'LT', 2, 1],
  [0x11, 'GT', 2, 1],
  [0x12, 'SLT', 2, 1],
  [0x13, 'SGT', 2, 1],
  [0x14, 'EQ', 2, 1],
  [0x15, 'ISZERO', 1, 1],
  [0x16, 'AND', 2, 1],
  [0x17, 'OR', 2, 1],
  [0x18, 'XOR', 2, 1],
  [0x19, 'NOT', 1, 1],
  [0x1a, 'BYTE', 2, 1],
  [0x1b, 'SHL', 2, 1],
  [0x1c, 'SHR', 2, 1],
  [0x1d, 'SAR', 2, 1],
  [0x20, 'KECCAK256', 2, 1],
  [0x30, 'ADDRESS', 0, 1],
  [0x31, 'BALANCE', 1, 1],
  [0x32, 'ORIGIN', 0, 1],
  [0x33, 'CALLER', 0, 1],
  [0x34, 'CALLVALUE', 0, 1],
  [0x35, 'CALLDATALOAD', 1, 1],
  [0x36, 'CALLDATASIZE', 0, 1],
  [0x37, 'CALLDATACOPY', 3, 0],
  [0x38, 'CODESIZE', 0, 1],
  [0x39, 'CODECOPY', 3, 0],
  [0x3a, 'GASPRICE', 0, 1],
  [0x3b, 'EXTCODESIZE', 1, 1],
  [0x3c, 'EXTCODECOPY', 4, 0],
  [0x3d, 'RETURNDATASIZE', 0, 1],
  [0x3e, 'RETURNDATACOPY', 3, 0],
  [0x3f, 'EXTCODEHASH', 1, 1],
  [0x40, 'BLOCKHASH', 1, 1],
  [0x41, 'COINBASE', 0, 1],
  [0x42, 'TIMESTAMP', 0, 1],
  [0x43, 'NUMBER', 0, 1],
  // geth keeps the pre-merge name (opCodeToString: DIFFICULTY, "rename to PREVRANDAO post merge")
  [0x44, 'DIFFICULTY', 0, 1],
  [0x45, 'GASLIMIT', 0, 1],
  [0x46, 'CHAINID', 0, 1],
  [0x47, 'SELFBALANCE', 0, 1],
  [0x48, 'BASEFEE', 0, 1],
  [0x49, 'BLOBHASH', 1, 1],
  [0x4a, 'BLOBBASEFEE', 0, 1],
  [0x50, 'POP', 1, 0],
  [0x51, 'MLOAD', 1, 1],
  [0x52, 'MSTORE', 2, 0],
  [0x53, 'MSTORE8', 2, 0],
  [0x54, 'SLOAD', 1, 1],
  [0x55, 'SSTORE', 2, 0],
  [0x56, 'JUMP', 1, 0],
  [0x57, 'JUMPI', 2, 0],
  [0x58, 'PC', 0, 1],
  [0x59, 'MSIZE', 0, 1],
  [0x5a, 'GAS', 0, 1],
  [0x5b, 'JUMPDEST', 0, 0],
  [0x5c, 'TLOAD', 1, 1],
  [0x5d, 'TSTORE', 2, 0],
  [0x5e, 'MCOPY', 3, 0],
  [0x5f, 'PUSH0', 0, 1],
  [0xf0, 'CREATE', 3, 1],
  [0xf1, 'CALL', 7, 1],
  [0xf2, 'CALLCODE', 7, 1],
  [0xf3, 'RETURN', 2, 0],
  [0xf4, 'DELEGATECALL', 6, 1],
  [0xf5, 'CREATE2', 4, 1],
  [0xfa, 'STATICCALL', 6, 1],
  [0xfd, 'REVERT', 2, 0],
  [0xfe, 'INVALID', 0, 0],
  [0xff, 'SELFDESTRUCT', 1, 0],
] as const) {
  define(op, name, i, o)
}
for (let n = 1; n <= 32; n++) define(0x5f + n, `PUSH${n}`, 0, 1)
for (let n = 1; n <= 16; n++) {
  define(0x7f + n, `DUP${n}`, n, n + 1)
  define(0x8f + n, `SWAP${n}`, n + 1, n + 1)
}
for (let n = 0; n <= 4; n++) define(0xa0 + n, `LOG${n}`, n + 2, 0)

/** geth's `OpCode.String()`: the name, or `opcode 0x.. not defined`. */
export function gethOpName(op: number): string {
  return NAMES.get(op) ?? `opcode 0x${op.toString(16)} not defined`
}

/**
 * geth's text of a stack error at `op` with `stackLen` items (core/vm/errors.go ErrStackUnderflow /
 * ErrStackOverflow: `stack underflow (1 <=> 2)`, `stack limit reached 1024 (1023)`), undefined when the
 * stack cannot be the cause.
 */
export function stackErrorText(op: number, stackLen: number): string | undefined {
  const arity = ARITY.get(op)
  if (!arity) return undefined
  const [inputs, outputs] = arity
  if (stackLen < inputs) return `stack underflow (${stackLen} <=> ${inputs})`
  // geth jump_table maxStack(pops, push) = StackLimit + pops - push
  const max = STACK_LIMIT + inputs - outputs
  if (stackLen > max) return `stack limit reached ${stackLen} (${max})`
  return undefined
}

/** The frame type an opcode opens (geth OnEnter `typ`), undefined for other opcodes. */
export function frameTypeOf(op: number): FrameType | undefined {
  switch (op) {
    case 0xf0:
      return 'CREATE'
    case 0xf1:
      return 'CALL'
    case 0xf2:
      return 'CALLCODE'
    case 0xf4:
      return 'DELEGATECALL'
    case 0xf5:
      return 'CREATE2'
    case 0xfa:
      return 'STATICCALL'
    case 0xff:
      return 'SELFDESTRUCT'
    default:
      return undefined
  }
}

/** CALL, CALLCODE, DELEGATECALL, STATICCALL. */
export const CALL_OPCODES = [0xf1, 0xf2, 0xf4, 0xfa] as const

/** CALL, CALLCODE, DELEGATECALL or STATICCALL (asked once per traced opcode). */
export function isCallOpcode(op: number): boolean {
  return op === 0xf1 || op === 0xf2 || op === 0xf4 || op === 0xfa
}
/** CREATE, CREATE2. */
export const CREATE_OPCODES = [0xf0, 0xf5] as const
/** JUMP, JUMPI: every loop passes one. */
export const JUMP_OPCODES = [0x56, 0x57] as const
/** LOG0..LOG4. */
export const LOG_OPCODES = [0xa0, 0xa1, 0xa2, 0xa3, 0xa4] as const
export const SELFDESTRUCT_OPCODE = 0xff
