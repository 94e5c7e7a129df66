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
 * `limit` caps the number of entries, as the execution-apis TraceConfig says ("maximum number of
 * opcode steps"); execution continues untraced past it. geth since #30806 counts bytes of JSON instead;
 * nodectl's cap on bytes is the node-wide `[json-rpc] trace-response-max-size` (trace-budget.ts).
 *
 * Entries are written as JSON bytes as they come (json-bytes.ts): an entry is serialised when the next
 * opcode arrives (its `error` is only known once the opcode failed), so the logger holds the text of
 * the answer, counted against the request's byte budget, never an object per step.
 */
import { bytesToHex } from '../../primitives/hex.js'
import type { OpcodeStep, TraceStateReader, Tracer, TxEndInfo } from './hooks.js'
import { JsonBytesWriter, type JsonBytes } from './json-bytes.js'
import type { TraceBudget } from './trace-budget.js'

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

/** The last entry, not yet written: `error` is only known once its opcode failed (onFault). */
interface PendingEntry {
  step: OpcodeStep
  /** `{"pc":…,"depth":…` */
  head: string
  error: string | undefined
  /** `,"stack":…` to `,"refund":…` without the closing brace; undefined while SLOAD's value is read. */
  rest: string | undefined
}

/** One executing account's storage seen so far, and its `,"storage":{…}` text (cleared on change). */
interface SeenSlots {
  slots: Map<string, string>
  json: string | undefined
}

export class StructLogger implements Tracer {
  private readonly out: JsonBytesWriter
  private entries = 0
  private pending: PendingEntry | undefined
  /** Per executing account (hex): slot → value (`0x` + 64 hex). */
  private readonly storage = new Map<string, SeenSlots>()
  private end: TxEndInfo | undefined
  private stopped: Error | undefined

  /** `budget`: the request's byte budget (none = uncapped). */
  constructor(
    private readonly opts: StructLoggerOptions,
    budget?: TraceBudget,
  ) {
    this.out = new JsonBytesWriter(budget)
  }

  onOpcode(step: OpcodeStep, state: TraceStateReader): Promise<void> | void {
    // geth: `Limit != 0 && Limit <= len(logs)` (a negative limit records nothing)
    if (this.stopped || (this.opts.limit !== 0 && this.entries >= this.opts.limit)) return
    this.flush()
    this.entries++
    const entry: PendingEntry = {
      step,
      head: `{"pc":${step.pc},"op":${opNameJson(step.op, step.opName)},"gas":${step.gas},"gasCost":${step.cost},"depth":${step.depth + 1}`,
      error: undefined,
      rest: undefined,
    }
    this.pending = entry
    let body = ''
    if (!this.opts.disableStack) body += `,"stack":${stackJson(step.stack)}`
    if (this.opts.enableReturnData && step.returnData.length > 0) body += `,"returnData":"${bytesToHex(step.returnData)}"`
    if (this.opts.enableMemory && step.memory.length > 0) body += `,"memory":${memoryJson(step.memory)}`
    const refund = step.refund > 0n ? `,"refund":${step.refund}` : ''
    const n = step.stack.length
    if (!this.opts.disableStorage && step.op === SSTORE && n >= 2) {
      body += this.touch(step.contract, word(step.stack[n - 1]!), word(step.stack[n - 2]!))
    } else if (!this.opts.disableStorage && step.op === SLOAD && n >= 1) {
      return this.load(entry, body, refund, state)
    }
    entry.rest = body + refund
  }

  /** SLOAD: the value is read from the state as it is before the opcode runs. */
  private async load(entry: PendingEntry, body: string, refund: string, state: TraceStateReader): Promise<void> {
    const step = entry.step
    const slot = word(step.stack[step.stack.length - 1]!)
    const value = await state.getStorage(step.contract, slot)
    entry.rest = body + this.touch(step.contract, slot, value) + refund
  }

  /** Records `slot = value` for `contract`; returns its `,"storage":{…}` text (keys sorted, as Go marshals maps). */
  private touch(contract: Uint8Array, slot: Uint8Array, value: Uint8Array): string {
    const key = bytesToHex(contract)
    let seen = this.storage.get(key)
    if (!seen) {
      seen = { slots: new Map(), json: undefined }
      this.storage.set(key, seen)
    }
    const slotHex = hex64(slot)
    const valueHex = hex64(value)
    if (seen.slots.get(slotHex) !== valueHex) {
      seen.slots.set(slotHex, valueHex)
      seen.json = undefined
    }
    seen.json ??= `,"storage":{${[...seen.slots]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `"${k}":"${v}"`)
      .join(',')}}`
    return seen.json
  }

  /** Writes the pending entry (a comma before every entry but the first). */
  private flush(): void {
    const e = this.pending
    if (!e) return
    this.pending = undefined
    const error = e.error === undefined ? '' : `,"error":${JSON.stringify(e.error)}`
    this.out.write(`${this.entries > 1 ? ',' : ''}${e.head}${error}${e.rest ?? ''}}`)
  }

  onFault(step: OpcodeStep, error: string): void {
    const last = this.pending
    if (last?.step === step && PRE_EXECUTION_ERROR.test(error)) last.error = error
  }

  onTxEnd(result: TxEndInfo): void {
    this.end = result
  }

  stop(reason: Error): void {
    this.stopped = reason
  }

  /** geth `ExecutionResult` as JSON bytes (the shape of StructLoggerResult). */
  result(): JsonBytes {
    if (this.stopped) throw this.stopped
    this.flush()
    const end = this.end
    const failed = end?.error !== undefined
    const output = end && (!failed || end.reverted) ? end.output : new Uint8Array(0)
    const head = `{"gas":${end?.gasUsed ?? 0n},"failed":${failed},"returnValue":"${bytesToHex(output)}","structLogs":[`
    return this.out.finish(head, ']}')
  }
}

/** A fresh struct logger per transaction, writing against the request's byte budget. */
export function createStructLogger(opts: StructLoggerOptions, budget?: TraceBudget): Tracer {
  return new StructLogger(opts, budget)
}

/** `"NAME"` per opcode byte, built once. */
const OP_NAME_JSON = new Map<number, string>()

function opNameJson(op: number, name: string): string {
  let json = OP_NAME_JSON.get(op)
  if (json === undefined) {
    json = JSON.stringify(name)
    OP_NAME_JSON.set(op, json)
  }
  return json
}

/** The stack bottom to top as `0x` hex without padding (uint256 `Hex()`). */
function stackJson(stack: readonly bigint[]): string {
  if (stack.length === 0) return '[]'
  let out = '["0x' + stack[0]!.toString(16)
  for (let i = 1; i < stack.length; i++) out += '","0x' + stack[i]!.toString(16)
  return out + '"]'
}

/** Memory as `0x`-prefixed 32-byte words (a partial last word is zero-padded, as geth since #34093). */
function memoryJson(memory: Uint8Array): string {
  const hex = Buffer.from(memory.buffer, memory.byteOffset, memory.length).toString('hex')
  let out = '['
  for (let i = 0; i < hex.length; i += 2 * WORD) {
    if (i > 0) out += ','
    out += `"0x${hex.slice(i, i + 2 * WORD).padEnd(2 * WORD, '0')}"`
  }
  return out + ']'
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
