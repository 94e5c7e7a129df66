/**
 * The EVM JSON-RPC surface's one table of errors (geth `rpc/errors.go`, viem `errors/`): every typed
 * error the eth, debug and other namespaces let through, and the code, message and data it has on the
 * wire. The node hands `renderEvmApiError` to the transport's Dispatcher; protocol errors (`RpcError`:
 * invalid params, method not found, unauthorized…) carry their own code and never reach this table,
 * and an error no row lists is an internal error (-32603, logged, never shown).
 *
 * geth returns almost every failure as a plain Go error: -32000 with its text. The exception is a
 * revert that carries data: code 3, `execution reverted: <reason>`, data = the revert bytes. A trace
 * answer past `trace-response-max-size` is -32003, geth's code for a response past its size limit.
 */
import {
  CallArgsError,
  CallTimeoutError,
  ExecutionRevertedError,
  LogLimitError,
  PrunedHistoryError,
  MissingStateError,
  UnknownBlockError,
  VmExecutionError,
} from '../evm/errors.js'
import { SimulateError } from '../evm/calls/simulate-errors.js'
import { TracerConfigError } from '../evm/tracing/hooks.js'
import {
  GenesisNotTraceableError,
  TraceTimeoutError,
  TraceTooLargeError,
  TraceTxNotFoundError,
  TracerError,
  TracerNotFoundError,
  TracingFailedError,
} from '../evm/tracing/trace-errors.js'
import { bytesToHex } from '../primitives/hex.js'
import { RpcErrorCode, type JsonRpcErrorObject } from '../rpc/json-rpc.js'
import type { ApiErrorRenderer } from '../rpc/render-evm-error.js'
import { TxPoolError } from '../txpool/tx-pool-error.js'
import { NodeError, errorRow, lookupError } from '../utils/errors.js'
import { AccountError } from './eth/account-errors.js'

/** geth's rendering of a plain error: -32000 with its text. */
function plain(err: Error): JsonRpcErrorObject {
  return { code: RpcErrorCode.server, message: err.message }
}

/** geth `revertError`: code 3 with the revert bytes as data; a revert without data is a plain error. */
function revert(err: ExecutionRevertedError): JsonRpcErrorObject {
  if (err.revertData.length === 0) return plain(err)
  return { code: RpcErrorCode.executionReverted, message: err.message, data: bytesToHex(err.revertData) }
}

/** geth `errcodeResponseTooLarge` (-32003), with the message that names the setting. */
function tooLarge(err: Error): JsonRpcErrorObject {
  return { code: RpcErrorCode.responseTooLarge, message: err.message }
}

/** Each error class and its wire form; a subclass not listed reads as its nearest listed ancestor. */
export const EVM_ERRORS = [
  // execution: eth_call, eth_estimateGas, eth_createAccessList (evm/errors.ts)
  errorRow(ExecutionRevertedError, revert),
  errorRow(VmExecutionError, plain),
  errorRow(CallTimeoutError, plain),
  errorRow(CallArgsError, plain),
  errorRow(MissingStateError, plain),
  // eth_simulateV1's request-wide failures carry the specification's codes (evm/calls/simulate-errors.ts)
  errorRow(SimulateError, (err) => ({ code: err.code, message: err.message })),
  // state and logs
  errorRow(UnknownBlockError, plain),
  errorRow(PrunedHistoryError, (err) => ({ code: PrunedHistoryError.CODE, message: err.message })),
  errorRow(LogLimitError, plain),
  // the pool's refusals of eth_sendRawTransaction / eth_sendTransaction, geth's texts (txpool/tx-pool-error.ts)
  errorRow(TxPoolError, plain),
  // debug_trace* (evm/tracing/trace-errors.ts, hooks.ts)
  errorRow(TraceTimeoutError, plain),
  errorRow(TraceTooLargeError, tooLarge),
  errorRow(TracerNotFoundError, plain),
  errorRow(TracerConfigError, plain),
  errorRow(TracerError, plain),
  errorRow(TraceTxNotFoundError, plain),
  errorRow(GenesisNotTraceableError, plain),
  errorRow(TracingFailedError, plain),
  // key-using methods (api/eth/account-errors.ts)
  errorRow(AccountError, plain),
  // any other expected failure, e.g. the handlers' own `filter not found`, `unknown block`
  errorRow(NodeError, plain),
]

/** The EVM surface's renderer of the API's errors, for the Dispatcher. */
export const renderEvmApiError: ApiErrorRenderer = lookupError(EVM_ERRORS)
