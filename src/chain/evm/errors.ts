/**
 * Typed errors of the EVM application. The RPC layer maps them to the wire in one place; codes and
 * messages follow geth (revert = code 3 with the revert data, everything else -32000).
 */
import { NodeError } from '../../utils/errors.js'
import { bytesToHex } from '../../primitives/hex.js'

/** geth's JSON-RPC code for a reverted call that carries revert data. */
export const EXECUTION_REVERTED_CODE = 3

/**
 * A call or estimate that reverted: `execution reverted: <reason>` when the data decodes as
 * Error(string) or Panic(uint256), else `execution reverted`. `data` is the 0x hex of the revert bytes.
 */
export class ExecutionRevertedError extends NodeError {
  constructor(readonly revertData: Uint8Array, readonly reason: string | undefined) {
    super(reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, revertData.length > 0 ? EXECUTION_REVERTED_CODE : -32000, revertData.length > 0 ? bytesToHex(revertData) : undefined)
  }
}

/** A call that failed inside the EVM for a reason other than REVERT (geth's VM error text). */
export class VmExecutionError extends NodeError {
  constructor(readonly vmError: string) {
    super(vmError)
  }
}

/** eth_call / estimateGas ran past the EVM timeout (geth: `execution aborted (timeout = 5s)`). */
export class CallTimeoutError extends NodeError {
  constructor(readonly timeoutMs: number) {
    super(`execution aborted (timeout = ${formatDuration(timeoutMs)})`)
  }
}

/** Call arguments that cannot be used (e.g. both data and input, or gas below intrinsic gas). */
export class CallArgsError extends NodeError {}

/** A height or block the application does not have (geth: `header not found`). */
export class UnknownBlockError extends NodeError {
  constructor(message = 'header not found') {
    super(message)
  }
}

/** eth_getLogs matched more logs than allowed; the RPC renders `query returned more than N results`. */
export class LogLimitError extends NodeError {
  constructor(readonly limit: number) {
    super(`query returned more than ${limit} results`)
  }
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}
