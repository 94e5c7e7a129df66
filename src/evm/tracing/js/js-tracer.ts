/**
 * A tracer running a user's JavaScript program with geth's JS tracer API (geth
 * `eth/tracers/js/goja.go`) in a QuickJS sandbox: `step(log, db)` per opcode, `fault(log, db)` when
 * one fails, `enter(frame)`/`exit(frameResult)` for inner call frames, `result(ctx, db)` at the end
 * and `setup(config)` once (with the `tracerConfig` as a JSON string, as geth passes it).
 *
 * As in geth, the first error (a throw, a timeout, running out of memory) ends the program's part:
 * later hooks do nothing and `result()` fails with `<error>    in server-side tracer function '<fn>'`.
 */
import type { QuickJSHandle } from 'quickjs-emscripten'
import { randomBytes } from '../../../crypto/random.js'
import { bytesToHex } from '../../../primitives/hex.js'
import {
  TracerConfigError,
  type FrameEnter,
  type FrameExit,
  type OpcodeStep,
  type TraceStateReader,
  type Tracer,
  type TxEndInfo,
  type TxStartInfo,
} from '../hooks.js'
import { createHostObject, type HostView } from './host-api.js'
import { PRELUDE_SOURCE } from './prelude.js'
import { Sandbox, SandboxError } from './sandbox.js'

/** Limits of one JS trace. */
export interface JsTracerLimits {
  /** Wall-clock ms for the whole trace, default 5000 (geth's default trace `timeout`). */
  timeoutMs: number
  /** Bytes the program's heap may hold, default 32 MiB. */
  memoryLimitBytes: number
}

export const defaultJsTracerLimits: JsTracerLimits = { timeoutMs: 5_000, memoryLimitBytes: 32 * 1024 * 1024 }

/**
 * How long one call into the program may run. The sandbox shares the node's event loop, so a
 * program stuck in one `step` would stall everything else until the trace deadline; a legitimate
 * step takes microseconds and a `result` rarely more than milliseconds.
 */
const CALL_BUDGET_MS = 1_000

/** The prelude's entry points (prelude.ts). */
interface Entries {
  init: QuickJSHandle
  step: QuickJSHandle
  fault: QuickJSHandle
  stepFromBox: QuickJSHandle
  faultFromBox: QuickJSHandle
  enter: QuickJSHandle
  exit: QuickJSHandle
  result: QuickJSHandle
}

const ENTRY_NAMES = ['init', 'step', 'fault', 'stepFromBox', 'faultFromBox', 'enter', 'exit', 'result'] as const

/** Length of the random marker by which the host finds the prelude's mailbox in WebAssembly memory. */
const MARKER_BYTES = 32
/** The mailbox's float64 slots, in the prelude's `stepFromBox` order. */
const BOX_SLOTS = 8
/** The top stack words the host copies into the mailbox per step for a program that reads the stack. */
const STACK_WINDOW = 8
const WINDOW_OFFSET = BOX_SLOTS * 8
const WORD_BYTES = 32
const MASK_64 = (1n << 64n) - 1n

/** Bits of the prelude's `init` answer. */
const HAS_STEP = 1
const HAS_FRAMES = 2

/** Go's `time.Duration.String()` for the `ctx.time` field (`1.5ms`, `850µs`, `2.01s`). */
function formatDuration(ms: number): string {
  if (ms >= 1000) return `${+(ms / 1000).toFixed(9)}s`
  if (ms >= 1) return `${+ms.toFixed(6)}ms`
  if (ms >= 0.001) return `${+(ms * 1000).toFixed(3)}µs`
  return `${Math.round(ms * 1e6)}ns`
}

/** Writes the top STACK_WINDOW words of `stack` (top first) as 32-byte big-endian words at `offset`. */
function writeStackWindow(heap: DataView, offset: number, stack: readonly bigint[]): void {
  const count = Math.min(STACK_WINDOW, stack.length)
  for (let i = 0; i < count; i++) {
    const word = stack[stack.length - 1 - i]!
    const at = offset + i * WORD_BYTES
    if (word <= MASK_64) {
      heap.setBigUint64(at, 0n)
      heap.setBigUint64(at + 8, 0n)
      heap.setBigUint64(at + 16, 0n)
    } else {
      heap.setBigUint64(at, word >> 192n)
      heap.setBigUint64(at + 8, (word >> 128n) & MASK_64)
      heap.setBigUint64(at + 16, (word >> 64n) & MASK_64)
    }
    heap.setBigUint64(at + 24, word & MASK_64)
  }
}

/** Builds a JS tracer: compiles `code`, checks its shape and runs its `setup`. */
export async function buildJsTracer(
  code: string,
  tracerConfig: Record<string, unknown> | undefined,
  limits: JsTracerLimits,
): Promise<Tracer & { dispose(): void }> {
  const sandbox = await Sandbox.create({
    memoryLimitBytes: limits.memoryLimitBytes,
    deadline: Date.now() + limits.timeoutMs,
    callBudgetMs: CALL_BUDGET_MS,
  })
  const view: HostView = { step: undefined, state: undefined }
  const owned: QuickJSHandle[] = []
  try {
    const { context } = sandbox
    const prelude = await sandbox.evaluate(PRELUDE_SOURCE, 'prelude.js')
    owned.push(prelude)
    const host = createHostObject(context, view)
    owned.push(host)
    const marker = randomBytes(MARKER_BYTES)
    const markerHex = context.newString(bytesToHex(marker).slice(2))
    owned.push(markerHex)
    const api = await sandbox.call(prelude, context.undefined, [host, markerHex])
    owned.push(api)
    // Where the host writes each step's numbers; without it (never seen) steps pass them as arguments.
    const mailbox = sandbox.locate(marker)
    const entries = Object.fromEntries(ENTRY_NAMES.map((name) => [name, context.getProp(api, name)])) as unknown as Entries
    owned.push(...Object.values(entries))

    let program: QuickJSHandle
    try {
      // geth evaluates "(" + code + ")"; the newline keeps a trailing line comment from eating the ")".
      program = await sandbox.evaluate(`(${code}\n)`, 'tracer.js')
    } catch (error) {
      throw new TracerConfigError(error instanceof Error ? error.message : String(error))
    }
    owned.push(program)
    const config = context.newString(JSON.stringify(tracerConfig ?? {}))
    owned.push(config)
    // Copying the top stack words each step pays off only for programs that read the stack; one
    // whose source never mentions it still can (log['st' + 'ack']), through a host call.
    const eagerStack = mailbox !== undefined && code.includes('stack')
    let flags: number
    try {
      const answer = await sandbox.call(entries.init, context.undefined, [program, config, eagerStack ? context.true : context.false])
      flags = context.getNumber(answer)
      answer.dispose()
    } catch (error) {
      throw new TracerConfigError(error instanceof Error ? error.message : String(error))
    }
    return new JsTracer(sandbox, view, entries, owned, mailbox, eagerStack, (flags & HAS_STEP) !== 0, (flags & HAS_FRAMES) !== 0)
  } catch (error) {
    sandbox.dispose(() => disposeAll(owned))
    throw error
  }
}

function disposeAll(handles: QuickJSHandle[]): void {
  for (const handle of handles) {
    try {
      if (handle.alive) handle.dispose()
    } catch {
      // Freed with the instance anyway.
    }
  }
  handles.length = 0
}

/** The `ctx` fields geth gives `result(ctx, db)`, encoded for the prelude (hex bytes, decimal bigints). */
type ResultContext = Record<string, string | number>

class JsTracer implements Tracer {
  readonly onOpcode?: (step: OpcodeStep, state: TraceStateReader) => Promise<void> | void
  private readonly ctx: ResultContext = {}
  private failure: Error | undefined
  private startedAt = 0
  private disposed = false

  constructor(
    private readonly sandbox: Sandbox,
    private readonly view: HostView,
    private readonly entries: Entries,
    private readonly owned: QuickJSHandle[],
    private readonly mailbox: number | undefined,
    private readonly eagerStack: boolean,
    hasStep: boolean,
    private readonly hasFrames: boolean,
  ) {
    // Only a program with step() asks for every opcode (the hook costs execution speed even empty).
    if (hasStep) this.onOpcode = (step, state) => this.runStep('step', step, state, undefined)
  }

  onTxStart(tx: TxStartInfo, state: TraceStateReader): void {
    this.view.state = state
    this.startedAt = performance.now()
    Object.assign(this.ctx, {
      block: Number(tx.blockNumber),
      gas: Number(tx.gasLimit),
      gasPrice: tx.gasPrice.toString(),
      intrinsicGas: Number(tx.intrinsicGas),
      coinbase: bytesToHex(tx.coinbase),
    })
    if (tx.blockHash.some((b) => b !== 0)) this.ctx.blockHash = bytesToHex(tx.blockHash)
    if (tx.txHash !== undefined) {
      this.ctx.txHash = bytesToHex(tx.txHash)
      if (tx.txIndex !== undefined) this.ctx.txIndex = tx.txIndex
    }
  }

  async onEnter(frame: FrameEnter, state: TraceStateReader): Promise<void> {
    this.view.state = state
    if (frame.depth === 0) {
      // geth's onStart: the transaction's own frame fills ctx instead of calling enter().
      Object.assign(this.ctx, {
        type: frame.type === 'CREATE' || frame.type === 'CREATE2' ? 'CREATE' : 'CALL',
        from: bytesToHex(frame.from),
        to: bytesToHex(frame.to),
        input: bytesToHex(frame.input),
        value: frame.value.toString(),
      })
      return
    }
    if (!this.hasFrames || this.failure) return
    const { context } = this.sandbox
    const args = [
      context.newString(frame.type),
      context.newArrayBuffer(frame.from.slice().buffer as ArrayBuffer),
      context.newArrayBuffer(frame.to.slice().buffer as ArrayBuffer),
      context.newArrayBuffer(frame.input.slice().buffer as ArrayBuffer),
      context.newNumber(Number(frame.gas)),
      // geth enters a STATICCALL with a nil value: getValue() is undefined there.
      frame.type === 'STATICCALL' ? context.undefined : context.newString(frame.value.toString()),
    ]
    await this.invoke('enter', this.entries.enter, args)
  }

  async onExit(frame: FrameExit, state: TraceStateReader): Promise<void> {
    this.view.state = state
    if (frame.depth === 0) {
      this.ctx.output = bytesToHex(frame.output)
      if (frame.error !== undefined) this.ctx.error = frame.error
      return
    }
    if (!this.hasFrames || this.failure) return
    const { context } = this.sandbox
    const args = [
      context.newNumber(Number(frame.gasUsed)),
      context.newArrayBuffer(frame.output.slice().buffer as ArrayBuffer),
      frame.error === undefined ? context.undefined : context.newString(frame.error),
    ]
    await this.invoke('exit', this.entries.exit, args)
  }

  onFault(step: OpcodeStep, error: string, state: TraceStateReader): Promise<void> | void {
    return this.runStep('fault', step, state, error)
  }

  onTxEnd(result: TxEndInfo, state: TraceStateReader): void {
    this.view.state = state
    this.ctx.gasUsed = Number(result.gasUsed)
    this.ctx.time = formatDuration(performance.now() - this.startedAt)
    // geth: "Don't override vm error".
    if (result.error !== undefined && this.ctx.error === undefined) this.ctx.error = result.error
  }

  async result(): Promise<unknown> {
    try {
      if (this.failure) throw this.failure
      const { context } = this.sandbox
      const arg = context.newString(JSON.stringify(this.ctx))
      let json: string
      try {
        const answer = await this.sandbox.call(this.entries.result, context.undefined, [arg])
        json = context.getString(answer)
        answer.dispose()
      } catch (error) {
        throw this.wrap('result', error)
      } finally {
        arg.dispose()
      }
      return JSON.parse(json) as unknown
    } finally {
      this.dispose()
    }
  }

  stop(reason: Error): void {
    this.failure ??= reason
    this.sandbox.stop(reason.message)
  }

  /** Frees the sandbox; result() does this itself, call it when a trace is abandoned before. */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    this.failure ??= new Error('tracer disposed')
    this.sandbox.dispose(() => disposeAll(this.owned))
  }

  private runStep(fn: 'step' | 'fault', step: OpcodeStep, state: TraceStateReader, error: string | undefined): Promise<void> | void {
    if (this.failure) return
    this.view.step = step
    this.view.state = state
    // geth's depth starts at 1 for the transaction's frame.
    const numbers = [
      step.op,
      step.pc,
      Number(step.gas),
      Number(step.cost),
      step.depth + 1,
      Number(step.refund),
      step.stack.length,
      step.memory.length,
    ]
    const { context } = this.sandbox
    const errorArgs = error === undefined ? [] : [context.newString(error)]
    if (this.mailbox !== undefined) {
      const heap = this.sandbox.view()
      for (let i = 0; i < BOX_SLOTS; i++) heap.setFloat64(this.mailbox + i * 8, numbers[i]!, true)
      if (this.eagerStack) writeStackWindow(heap, this.mailbox + WINDOW_OFFSET, step.stack)
      return this.invoke(fn, fn === 'step' ? this.entries.stepFromBox : this.entries.faultFromBox, errorArgs)
    }
    const args = [...numbers.map((n) => context.newNumber(n)), ...errorArgs]
    return this.invoke(fn, fn === 'step' ? this.entries.step : this.entries.fault, args)
  }

  /** Calls an entry point (disposing `args`); the first failure is kept and ends the program's part. */
  private async invoke(fn: string, entry: QuickJSHandle, args: QuickJSHandle[]): Promise<void> {
    try {
      const answer = await this.sandbox.call(entry, this.sandbox.context.undefined, args)
      answer.dispose()
    } catch (error) {
      this.failure ??= this.wrap(fn, error)
    } finally {
      for (const arg of args) if (arg.alive) arg.dispose()
      this.view.step = undefined
    }
  }

  /** geth's `wrapError`: `<error>    in server-side tracer function '<fn>'`. */
  private wrap(fn: string, error: unknown): Error {
    if (error instanceof SandboxError && error.failure === 'timeout' && this.failure) return this.failure
    const message = error instanceof Error ? error.message : String(error)
    return new Error(`${message}    in server-side tracer function '${fn}'`)
  }
}
