/**
 * Errors of the eth namespace with geth's codes and wording. The EVM-style renderer
 * (`rpc/render-evm-error.ts`) puts `code`, `message` and `data` on the wire as they are here.
 */
import { NodeError } from '../../utils/errors.js'
import { RpcErrorCode } from '../../rpc/json-rpc.js'
import type { ExecutionResult } from './backend.js'
import { encodeData } from './format.js'
import { decodeRevertReason } from '../../chain/evm/vm-errors.js'

/** The reason of revert data (`Error(string)` / `Panic(uint256)`), decoded where the EVM runs. */
export { decodeRevertReason }

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
