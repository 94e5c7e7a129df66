/**
 * EVM failure texts in geth's words (ethereumjs says `revert`, `invalid JUMP`…; clients and the
 * `ethereumTxFailed` event attribute expect geth's `execution reverted`, `invalid jump destination`…)
 * and decoding of revert data (Solidity `Error(string)` and `Panic(uint256)`, geth `abi.UnpackRevert`).
 */
import { bytesToBigint, bytesToUtf8 } from '../primitives/hex.js'

const GETH_VM_ERRORS: Record<string, string> = {
  revert: 'execution reverted',
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024',
  'invalid JUMP': 'invalid jump destination',
  'invalid opcode': 'invalid opcode',
  'value out of range': 'return data out of bounds',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'value overflow': 'gas uint64 overflow',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
}

/** geth's text for an ethereumjs EVMError string (unknown strings pass through). */
export function gethVmError(ethereumjsError: string): string {
  return GETH_VM_ERRORS[ethereumjsError] ?? ethereumjsError
}

/** Selector of Solidity's `Error(string)`. */
const ERROR_SELECTOR = 0x08c379a0
/** Selector of Solidity's `Panic(uint256)`. */
const PANIC_SELECTOR = 0x4e487b71

/** Solidity panic codes (docs "Panic via assert and Error via require"), as geth words them. */
const PANIC_REASONS: Record<number, string> = {
  0: 'generic panic',
  1: 'assert(false)',
  17: 'arithmetic underflow or overflow',
  18: 'division or modulo by zero',
  33: 'enum overflow',
  34: 'invalid encoded storage byte array accessed',
  49: 'out-of-bounds array access; popping on an empty array',
  50: 'out-of-bounds access of an array or bytesN',
  65: 'out of memory',
  81: 'uninitialized function',
}

/** The human reason of revert data, or undefined when it is neither Error(string) nor Panic(uint256). */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const selector = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0
  const body = data.subarray(4)
  if (selector === PANIC_SELECTOR) {
    if (body.length !== 32) return undefined
    const code = bytesToBigint(body)
    const known = code < 256n ? PANIC_REASONS[Number(code)] : undefined
    return known ?? `unknown panic code: 0x${code.toString(16)}`
  }
  if (selector !== ERROR_SELECTOR || body.length < 64) return undefined
  const offset = bytesToBigint(body.subarray(0, 32))
  if (offset + 32n > BigInt(body.length)) return undefined
  const start = Number(offset)
  const length = bytesToBigint(body.subarray(start, start + 32))
  if (BigInt(start) + 32n + length > BigInt(body.length)) return undefined
  return bytesToUtf8(body.subarray(start + 32, start + 32 + Number(length)))
}
