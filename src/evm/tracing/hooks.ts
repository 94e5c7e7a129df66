/**
 * The tracing hooks every tracer implements (geth `core/tracing/hooks.go`, reduced to what the tracers
 * of debug_trace* need). The trace executor (trace-executor.ts) adapts `@ethereumjs/evm` events to
 * these hooks on a per-request copy of the state, never on the consensus VM (a `step` listener slows
 * every opcode by 10–15%), so a tracer sees geth's view:
 *
 *   onTxStart → (onEnter → (onOpcode | onFault | onLog | nested onEnter…onExit)* → onExit) → onTxEnd
 *
 * The outermost frame (depth 0 here, geth's depth 1 in struct logs) is entered once per transaction.
 * Hooks may return a promise (a tracer that reads state, or runs a sandboxed program); the executor
 * awaits it before execution continues, so reads see the state at that instant.
 */
import { NodeError } from '../../utils/errors.js'

/** Addresses are 20 bytes, words and hashes 32 bytes; amounts are bigint wei. */
export type Address = Uint8Array

/** Reads of the state as it is at the moment of the hook (mid-transaction, uncommitted changes included). */
export interface TraceStateReader {
  getBalance(address: Address): Promise<bigint>
  getNonce(address: Address): Promise<bigint>
  getCode(address: Address): Promise<Uint8Array>
  /** The 32-byte value of a 32-byte slot (zeros when unset). */
  getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array>
  /** True when the account exists (non-empty per EIP-161, or touched into existence). */
  exists(address: Address): Promise<boolean>
}

/** The block and transaction being traced (geth's `tracing.VMContext` + the tx). */
export interface TxStartInfo {
  blockNumber: bigint
  blockHash: Uint8Array
  /** Unix seconds. */
  timestamp: bigint
  coinbase: Address
  baseFee: bigint
  /** Position in the block; undefined for debug_traceCall. */
  txIndex: number | undefined
  /** The EVM tx hash; undefined for debug_traceCall. */
  txHash: Uint8Array | undefined
  from: Address
  /** undefined for a contract creation. */
  to: Address | undefined
  input: Uint8Array
  value: bigint
  gasLimit: bigint
  /** The effective gas price the tx pays. */
  gasPrice: bigint
  /** Gas charged before the first opcode (intrinsic gas). */
  intrinsicGas: bigint
}

/** geth's call-frame types (the opcode that opened the frame; the top frame is CALL or CREATE). */
export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT'

/** A frame being entered. */
export interface FrameEnter {
  type: FrameType
  /** 0 for the transaction's own frame. */
  depth: number
  from: Address
  /** The callee, or the address being created. */
  to: Address
  input: Uint8Array
  /** Gas available to the frame. */
  gas: bigint
  /** Value transferred (for DELEGATECALL the caller's value, as geth shows it). */
  value: bigint
}

/** A frame being left. */
export interface FrameExit {
  depth: number
  /** Return data, or the revert data when reverted. */
  output: Uint8Array
  gasUsed: bigint
  /** geth's error text (`execution reverted`, `out of gas`, `invalid opcode: INVALID`…), undefined on success. */
  error: string | undefined
  /** The frame ended with REVERT (its output is the revert data). */
  reverted: boolean
}

/** One opcode about to execute (geth `OnOpcode`: before gas is deducted, memory before expansion). */
export interface OpcodeStep {
  pc: number
  /** The opcode byte and geth's name for it (`PUSH1`, `SSTORE`, `SELFDESTRUCT`…). */
  op: number
  opName: string
  /** Gas left before the opcode. */
  gas: bigint
  /** The opcode's cost (static + dynamic), geth's `gasCost`. */
  cost: bigint
  /** 0 for the transaction's own frame. */
  depth: number
  /** Bottom to top; do not keep or change it (copy what you need). */
  stack: readonly bigint[]
  /** The frame's memory; do not keep or change it. */
  memory: Uint8Array
  /** Return data of the last call in this frame. */
  returnData: Uint8Array
  /** The refund counter. */
  refund: bigint
  /** The executing contract (storage context) and the address whose code runs. */
  contract: Address
  codeAddress: Address
  /** The caller and value of the frame (geth's `contract.Caller()`, `contract.Value()`). */
  caller: Address
  callValue: bigint
  /** The frame's input. */
  input: Uint8Array
}

/** A log emitted (geth `OnLog`). */
export interface LogEvent {
  depth: number
  address: Address
  topics: Uint8Array[]
  data: Uint8Array
}

/** How the transaction ended. */
export interface TxEndInfo {
  /** Gas used by the transaction (after refunds), as in its receipt. */
  gasUsed: bigint
  /** Return data of the top frame (the revert data when reverted). */
  output: Uint8Array
  /** geth's error text of the top frame, undefined on success. */
  error: string | undefined
  reverted: boolean
}

/** The hooks; every one is optional. A promise returned is awaited before execution continues. */
export interface TraceHooks {
  onTxStart?(tx: TxStartInfo, state: TraceStateReader): void | Promise<void>
  onEnter?(frame: FrameEnter, state: TraceStateReader): void | Promise<void>
  onExit?(frame: FrameExit, state: TraceStateReader): void | Promise<void>
  /** Present only when the tracer needs every opcode (it costs ~10-15 % of execution speed even when empty). */
  onOpcode?(step: OpcodeStep, state: TraceStateReader): void | Promise<void>
  /** The opcode of `step` failed with `error` (geth's text). */
  onFault?(step: OpcodeStep, error: string, state: TraceStateReader): void | Promise<void>
  onLog?(log: LogEvent): void
  onTxEnd?(result: TxEndInfo, state: TraceStateReader): void | Promise<void>
}

/** A tracer: hooks for one transaction, then its JSON result (geth `tracers.Tracer.GetResult`). */
export interface Tracer extends TraceHooks {
  /** The JSON value debug_trace* returns for the transaction. */
  result(): unknown | Promise<unknown>
  /** Stops the tracer early (timeout); `result()` then fails with `reason`. */
  stop?(reason: Error): void
  /** Frees what the tracer holds outside the JS heap (a sandbox) when the trace failed before `result()`. */
  dispose?(): void
}

/** What a tracer is built from: the request's `tracerConfig` (already an object or undefined). */
export interface TracerOptions {
  tracerConfig: Record<string, unknown> | undefined
}

/** Builds a fresh tracer per transaction; throws TracerConfigError for a bad `tracerConfig`. */
export type TracerFactory = (options: TracerOptions) => Tracer | Promise<Tracer>

/** A tracer name or `tracerConfig` that cannot be used; the message is what the caller sees. */
export class TracerConfigError extends NodeError {}
