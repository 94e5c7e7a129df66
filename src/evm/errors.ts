/**
 * Typed errors of the EVM application, in geth's words and without wire codes: each RPC surface maps
 * them in its error table (api/evm-errors.ts puts a revert with data on the wire as code 3).
 */
import { NodeError } from '../utils/errors.js'

/**
 * A call or estimate that reverted: `execution reverted: <reason>` when the revert data decodes as
 * Error(string) or Panic(uint256) (decoded once, where the EVM ran), else `execution reverted`.
 */
export class ExecutionRevertedError extends NodeError {
  constructor(
    readonly revertData: Uint8Array,
    readonly reason: string | undefined,
  ) {
    super(reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`)
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

/** A height or block the application does not have (geth: `header not found`, `header for hash not found`). */
export class UnknownBlockError extends NodeError {
  constructor(message = 'header not found') {
    super(message)
  }
}

/**
 * A block, its receipts or its logs below the history this node keeps (`min-retain-blocks`): geth's
 * `history.PrunedHistoryError` of its history expiry, code 4444 (EIP-4444) with its text.
 */
export class PrunedHistoryError extends NodeError {
  /** geth's `ErrorCode()` of a pruned block, receipt or log range. */
  static readonly CODE = 4444
  constructor() {
    super('pruned history unavailable')
  }
}

/**
 * The state of a height that pruning removed (geth v1.17's words for a state it no longer has:
 * `historical state <root> is not available`).
 */
export class MissingStateError extends NodeError {
  constructor(
    readonly height: number,
    root?: Uint8Array,
  ) {
    super(
      root
        ? `historical state ${Buffer.from(root).toString('hex')} is not available`
        : `historical state of block ${height} is not available`,
    )
  }
}

/** eth_getLogs matched more logs than allowed (geth: `query returned more than N results`). */
export class LogLimitError extends NodeError {
  constructor(readonly limit: number) {
    super(`query returned more than ${limit} results`)
  }
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}
