/**
 * What the debug handlers need from the node, and nothing more (geth `tracers.Backend` plus the raw
 * getters of `ethapi.DebugAPI`). Blocks are already resolved by the handlers; the tracing methods
 * re-execute on private state copies and throw the typed errors of evm/tracing/trace-errors.ts
 * with geth's messages (`transaction not found`, `genesis is not traceable`, `execution timeout`,
 * `tracer not found`, `tracing failed: …`).
 */
import type { BlockOverrides, StateOverride } from '../../evm/calls/call-overrides.js'
import type { TxTraceResult } from '../../evm/tracing/trace-executor.js'
import type { TracerRequest } from '../../evm/tracing/tracer-registry.js'
import type { EvmBlock } from '../../evm/store/views.js'
import type { CallArgs } from '../eth/backend.js'

export type { BlockOverrides, StateOverride, TracerRequest, TxTraceResult }

/** debug_traceCall's overrides (geth TraceCallConfig). */
export interface CallOverrides {
  stateOverrides: StateOverride[]
  blockOverrides: BlockOverrides | undefined
}

export interface DebugBackend {
  /** Height of the last committed block. */
  latestHeight(): number
  getBlockByNumber(height: number): Promise<EvmBlock | undefined>
  getBlockByHash(hash: Uint8Array): Promise<EvmBlock | undefined>

  /** Re-executes the committed transaction `hash` (its block's earlier transactions first) under the tracer. */
  traceTransaction(hash: Uint8Array, request: TracerRequest): Promise<unknown>
  /** Re-executes every transaction of `block` (not genesis) under a fresh tracer each. */
  traceBlock(block: EvmBlock, request: TracerRequest): Promise<TxTraceResult[]>
  /** Traces `args` as a transaction on the state after block `height`, with the overrides. */
  traceCall(args: CallArgs, height: number, overrides: CallOverrides, request: TracerRequest): Promise<unknown>

  /** RLP of the block's header (the EVM view's fields). */
  getRawHeader(block: EvmBlock): Promise<Uint8Array>
  /** RLP of [header, transactions, uncles]. */
  getRawBlock(block: EvmBlock): Promise<Uint8Array>
  /** The block's receipts, each in its consensus encoding. */
  getRawReceipts(block: EvmBlock): Promise<Uint8Array[]>
  /** The signed bytes of a committed or pooled transaction, undefined when unknown. */
  getRawTransaction(hash: Uint8Array): Promise<Uint8Array | undefined>
}
