/**
 * geth's default tracer, the struct (opcode) logger (eth/tracers/logger/logger.go), with its JSON as
 * current geth writes it (`toLegacyJSON` after go-ethereum#34093, which adopted the execution-apis#762
 * opcode-tracer spec; `ExecutionResult`):
 *
 *   {gas, failed, returnValue, structLogs: [{pc, op, gas, gasCost, depth, error?, stack?, returnData?,
 *    memory?, storage?, refund?}]}
 *
 * - `depth` counts from 1 (the transaction's own frame);
 * - `stack`: bottom to top, `0x` hex without padding (uint256 `Hex()`), `[]` when empty, absent with
 *   `disableStack`;
 * - `memory` (`enableMemory`): `0x` + 64 hex digits per 32-byte word, absent while memory is empty;
 * - `storage` (not with `disableStorage`): only on SLOAD and SSTORE, the slots of the executing account
 *   seen so far in the transaction (SLOAD: the value read, SSTORE: the value written), keys and values
 *   `0x` + 64 hex digits (`common.Hash.Hex()`), keys sorted (Go marshals maps sorted);
 * - `returnData` (`enableReturnData`): `0x` hex of the last call's return data, absent when empty;
 * - `refund`: the refund counter, absent when 0;
 * - `error`: only for the failures geth detects before it logs the opcode (stack under/overflow, out
 *   of gas); an opcode that fails while executing (REVERT, invalid jump…) carries none;
 * - `gas` is the transaction's receipt gas, `failed` whether the top frame failed, `returnValue` the
 *   output (revert data when reverted, empty for other failures) as `0x` hex (`hexutil.Bytes`).
 *   Before those changes geth wrote memory, storage and returnValue without `0x`.
 *
 * `limit` caps the number of entries (execution-apis TraceConfig: "maximum number of opcode steps";
 * geth since #30806 counts bytes of JSON instead); execution continues untraced past it.
 */
import { bytesToHex } from '../../../primitives/hex.js'
import type { OpcodeStep, TraceStateReader, Tracer, TxEndInfo } from './hooks.js'

/** The struct logger's part of geth's TraceConfig (`logger.Config`). */
export interface StructLoggerOptions {
  /** Capture memory (default false). */
  enableMemory: boolean
  /** Leave the stack out (default false). */
  disableStack: boolean
  /** Leave storage out (default false). */
  disableStorage: boolean
  /** Capture the last call's return data (default false). */
  enableReturnData: boolean
  /** Most entries recorded; 0 = no limit (default 0). */
  limit: number
}

export const defaultStructLoggerOptions: StructLoggerOptions = {
  enableMemory: false,
  disableStack: false,
  disableStorage: false,
  enableReturnData: false,
  limit: 0,
}

/** One structLogs entry in geth's field order. */
export interface StructLogJson {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  error?: string
  stack?: string[]
  returnData?: string
  memory?: string[]
  storage?: Record<string, string>
  refund?: number
}

/** geth `logger.ExecutionResult`. */
export interface StructLoggerResult {
  gas: number
  failed: boolean
  returnValue: string
  structLogs: StructLogJson[]
}

const SLOAD = 0x54
const SSTORE = 0x55
const WORD = 32
/** Errors geth's interpreter raises before it calls OnOpcode, so the entry carries them. */
const PRE_EXECUTION_ERROR = /^(out of gas|stack underflow|stack limit reached|gas uint64 overflow)/

/** A struct log entry before serialisation (`error` is only known once the opcode failed). */
interface Entry {
  step: OpcodeStep
  error: string | undefined
  stack: string[] | undefined
  returnData: string | undefined
  memory: string[] | undefined
  storage: Record<string, string> | undefined
}

export class StructLogger implements Tracer {
  private readonly entries: Entry[] = []
  /** Per executing account (hex): slot → value (`0x` + 64 hex). */
  private readonly storage = new Map<string, Map<string, string>>()
  private end: TxEndInfo | undefined
  private stopped: Error | undefined

  constructor(private readonly opts: StructLoggerOptions) {}

  onOpcode(step: OpcodeStep, state: TraceStateReader): Promise<void> | void {
    // geth: `Limit != 0 && Limit <= len(logs)` (a negative limit records nothing)
    if (this.stopped || (this.opts.limit !== 0 && this.entries.length >= this.opts.limit)) return
    const entry: Entry = {
      step,
      error: undefined,
      stack: this.opts.disableStack ? undefined : step.stack.map((v) => '0x' + v.toString(16)),
      returnData: this.opts.enableReturnData && step.returnData.length > 0 ? bytesToHex(step.returnData) : undefined,
      memory: this.opts.enableMemory && step.memory.length > 0 ? memoryWords(step.memory) : undefined,
      storage: undefined,
    }
    this.entries.push(entry)
    if (this.opts.disableStorage || (step.op !== SLOAD && step.op !== SSTORE)) return
    const n = step.stack.length
    if (step.op === SSTORE && n >= 2) {
      entry.storage = this.touch(step.contract, word(step.stack[n - 1]!), word(step.stack[n - 2]!))
    } else if (step.op === SLOAD && n >= 1) {
      return this.load(entry, state)
    }
  }

  /** SLOAD: the value is read from the state as it is before the opcode runs. */
  private async load(entry: Entry, state: TraceStateReader): Promise<void> {
    const step = entry.step
    const slot = word(step.stack[step.stack.length - 1]!)
    const value = await state.getStorage(step.contract, slot)
    entry.storage = this.touch(step.contract, slot, value)
  }

  private touch(contract: Uint8Array, slot: Uint8Array, value: Uint8Array): Record<string, string> {
    const key = bytesToHex(contract)
    let slots = this.storage.get(key)
    if (!slots) {
      slots = new Map()
      this.storage.set(key, slots)
    }
    slots.set(hex64(slot), hex64(value))
    return Object.fromEntries([...slots].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }

  onFault(step: OpcodeStep, error: string): void {
    const last = this.entries.at(-1)
    if (last?.step === step && PRE_EXECUTION_ERROR.test(error)) last.error = error
  }

  onTxEnd(result: TxEndInfo): void {
    this.end = result
  }

  stop(reason: Error): void {
    this.stopped = reason
  }

  result(): StructLoggerResult {
    if (this.stopped) throw this.stopped
    const end = this.end
    const failed = end?.error !== undefined
    const output = end && (!failed || end.reverted) ? end.output : new Uint8Array(0)
    return { gas: Number(end?.gasUsed ?? 0n), failed, returnValue: bytesToHex(output), structLogs: this.entries.map(toJson) }
  }
}

/** A fresh struct logger per transaction. */
export function createStructLogger(opts: StructLoggerOptions): Tracer {
  return new StructLogger(opts)
}

function toJson(e: Entry): StructLogJson {
  const s = e.step
  const out: StructLogJson = { pc: s.pc, op: s.opName, gas: Number(s.gas), gasCost: Number(s.cost), depth: s.depth + 1 }
  if (e.error !== undefined) out.error = e.error
  if (e.stack) out.stack = e.stack
  if (e.returnData !== undefined) out.returnData = e.returnData
  if (e.memory) out.memory = e.memory
  if (e.storage) out.storage = e.storage
  if (s.refund > 0n) out.refund = Number(s.refund)
  return out
}

/** Memory as `0x`-prefixed 32-byte words (a partial last word is zero-padded, as geth since #34093). */
function memoryWords(memory: Uint8Array): string[] {
  const words: string[] = []
  for (let i = 0; i < memory.length; i += WORD) {
    const end = Math.min(i + WORD, memory.length)
    words.push(
      '0x' +
        Buffer.from(memory.buffer, memory.byteOffset + i, end - i)
          .toString('hex')
          .padEnd(2 * WORD, '0'),
    )
  }
  return words
}

/** A stack value as a 32-byte word. */
function word(value: bigint): Uint8Array {
  const out = new Uint8Array(WORD)
  let v = value
  for (let i = WORD - 1; i >= 0 && v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn)
  return out
}

/** 32 bytes as `0x` + 64 hex digits (geth `common.Hash.Hex()`). */
function hex64(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex').padStart(64, '0')
}
