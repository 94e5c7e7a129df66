/**
 * Errors of the eth namespace with geth's codes and wording. The EVM-style renderer
 * (`rpc/render-evm-error.ts`) puts `code`, `message` and `data` on the wire as they are here.
 */
import { NodeError } from '../../utils/errors.js'
import { RpcErrorCode } from '../../rpc/json-rpc.js'
import type { ExecutionResult } from './backend.js'
import { encodeData } from './format.js'

/** Solidity `Error(string)` selector. */
const ERROR_SELECTOR = 0x08c379a0
/** Solidity `Panic(uint256)` selector. */
const PANIC_SELECTOR = 0x4e487b71

/** geth `abi.panicReasons`. */
const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
}

function readWord(data: Uint8Array, offset: number): bigint | undefined {
  if (offset + 32 > data.length) return undefined
  let v = 0n
  for (let i = offset; i < offset + 32; i++) v = (v << 8n) | BigInt(data[i]!)
  return v
}

/** The reason of revert data as geth's `abi.UnpackRevert`: `Error(string)` or `Panic(uint256)`; else undefined. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const selector = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0
  if (selector === ERROR_SELECTOR) {
    const offset = readWord(data, 4)
    if (offset === undefined || offset > BigInt(data.length)) return undefined
    const length = readWord(data, 4 + Number(offset))
    const start = 4 + Number(offset) + 32
    if (length === undefined || BigInt(start) + length > BigInt(data.length)) return undefined
    return new TextDecoder().decode(data.subarray(start, start + Number(length)))
  }
  if (selector === PANIC_SELECTOR && data.length === 36) {
    const code = readWord(data, 4)!
    const reason = code <= 0xffn ? PANIC_REASONS[Number(code)] : undefined
    return reason ?? `unknown panic code: 0x${code.toString(16)}`
  }
  return undefined
}

/** geth `revertError`: code 3, `execution reverted[: reason]`, data = the revert bytes as DATA. */
export class ExecutionRevertedError extends NodeError {
  constructor(readonly revertData: Uint8Array) {
    const reason = decodeRevertReason(revertData)
    super(reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, RpcErrorCode.executionReverted, encodeData(revertData))
  }
}

/**
 * The error an execution outcome turns into, as geth's DoCall: a revert with data → code 3; a revert
 * without data → -32000 `execution reverted`; another VM error → -32000 with its text.
 */
export function executionError(result: ExecutionResult): NodeError | undefined {
  if (result.reverted) {
    return result.returnData.length > 0 ? new ExecutionRevertedError(result.returnData) : new NodeError('execution reverted', RpcErrorCode.server)
  }
  if (result.vmError !== undefined) return new NodeError(result.vmError, RpcErrorCode.server)
  return undefined
}

/** geth: state requested for a block past the head. */
export function headerNotFoundError(): NodeError {
  return new NodeError('header not found', RpcErrorCode.server)
}

/** geth: state requested for an unknown block hash. */
export function headerForHashNotFoundError(): NodeError {
  return new NodeError('header for hash not found', RpcErrorCode.server)
}
