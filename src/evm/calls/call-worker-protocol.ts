/**
 * What the main thread and a call worker (call-workers.ts, call-worker.ts) send each other: the
 * worker's settings, requests with the height to run at (and its state, the first time), and answers,
 * where an error travels as data and is rebuilt as the class the RPC layer maps to its wire error (a
 * revert keeps its data). A message carries a list: the main thread sends each request as it is made,
 * the worker its answers in batches (message-batch.ts), each in the order made.
 */
import type { CallArgs } from './call-args.js'
import type { DevChainRules } from '../common.js'
import type { CallOptions, CallResult } from './calls.js'
import { CallArgsError, CallTimeoutError, ExecutionRevertedError, UnknownBlockError, VmExecutionError } from '../errors.js'
import type { StateAt } from '../state/state-copy.js'

/** A worker's `workerData`. */
export interface CallWorkerData {
  /** The LevelDB folder, opened again by the worker (the node opened it for several threads). */
  dbPath: string
  evmChainId: bigint
  /** A dev chain's rules (common.ts). */
  devRules?: DevChainRules
  /** Genesis `validator_admin` (the system contract a call may reach). */
  validatorAdmin: Uint8Array | undefined
  calls: CallOptions
  /** The worker's own trie-node cache, bytes. */
  trieNodeCacheBytes: number
}

export type CallOp = 'call' | 'estimateGas'

/**
 * A call at `height`. The state of a height (root and block environment) travels once, with the first
 * request at it: both threads keep the last STATES_KEPT heights sent, adding and dropping them in the
 * same order (a port delivers messages in the order sent), so the worker holds every state a later
 * request names.
 */
export interface CallRequest {
  id: number
  op: CallOp
  args: CallArgs
  height: number
  state: StateAt | undefined
}

/** Most answers in one message from a worker. */
export const ANSWER_BATCH_MAX = 8

/** Heights whose state a worker keeps (calls at older heights send theirs again). */
export const STATES_KEPT = 16

/** Adds `height` to the heights a worker holds, dropping the oldest beyond STATES_KEPT; false if it was there. */
export function keepState<V>(held: Map<number, V>, height: number, value: V): boolean {
  if (held.has(height)) return false
  held.set(height, value)
  if (held.size > STATES_KEPT) held.delete(held.keys().next().value!)
  return true
}

/** The worker's first message, once its database is open. */
export interface WorkerReady {
  ready: true
}

export type CallAnswer = { id: number; result: CallResult | bigint } | { id: number; error: WireError }

export type WireError =
  | { kind: 'revert'; data: Uint8Array; reason: string | undefined }
  | { kind: 'vm'; message: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'args'; message: string }
  | { kind: 'unknownBlock'; message: string }
  | { kind: 'internal'; message: string }

export function toWireError(err: unknown): WireError {
  if (err instanceof ExecutionRevertedError) return { kind: 'revert', data: err.revertData, reason: err.reason }
  if (err instanceof VmExecutionError) return { kind: 'vm', message: err.vmError }
  if (err instanceof CallTimeoutError) return { kind: 'timeout', timeoutMs: err.timeoutMs }
  if (err instanceof CallArgsError) return { kind: 'args', message: err.message }
  if (err instanceof UnknownBlockError) return { kind: 'unknownBlock', message: err.message }
  return { kind: 'internal', message: err instanceof Error ? err.message : String(err) }
}

export function fromWireError(wire: WireError): Error {
  switch (wire.kind) {
    case 'revert':
      return new ExecutionRevertedError(wire.data, wire.reason)
    case 'vm':
      return new VmExecutionError(wire.message)
    case 'timeout':
      return new CallTimeoutError(wire.timeoutMs)
    case 'args':
      return new CallArgsError(wire.message)
    case 'unknownBlock':
      return new UnknownBlockError(wire.message)
    case 'internal':
      return new Error(wire.message)
  }
}
