/**
 * One QuickJS interpreter (compiled to WebAssembly, `quickjs-emscripten`) per trace, for running a
 * user's tracer program. The program sees only what is installed into its context: no `require`,
 * `process`, timers, network or files exist in QuickJS, and nothing of the node is reachable.
 *
 * Limits: a deadline for the whole trace and a budget for each call into the program, both enforced
 * by QuickJS's interrupt handler (checked between bytecodes; one native builtin call, e.g. sorting a
 * huge array, runs to its end, which the memory limit bounds), and a memory limit. QuickJS's own
 * limit (`setMemoryLimit`) is kept but does not bound bytes under Emscripten: its accounting uses
 * `malloc_usable_size`, which QuickJS stubs to 0 there, so a 1 MiB ArrayBuffer counts as 8 bytes.
 * The bound that holds is the WebAssembly memory itself: each sandbox gets its own
 * `WebAssembly.Memory` with a maximum, and an allocation past it fails inside QuickJS (out of memory).
 *
 * The asyncified build is used so that host functions may be async (the program's `db.getBalance`
 * is synchronous for it, our state reads are not): the WebAssembly stack unwinds while the read is
 * awaited and rewinds afterwards. Only one suspended call may exist per WebAssembly instance, so each
 * sandbox has its own instance and calls into it are serialised.
 */
import {
  newQuickJSAsyncWASMModuleFromVariant,
  newVariant,
  RELEASE_ASYNC,
  type QuickJSAsyncContext,
  type QuickJSAsyncWASMModule,
  type QuickJSHandle,
} from 'quickjs-emscripten'

/** What bounds a sandbox. */
export interface SandboxLimits {
  /** Bytes the program may allocate (at least ~10 MiB: the interpreter's initial memory less its own use). */
  memoryLimitBytes: number
  /** `Date.now()` after which every call fails with `execution timeout`. */
  deadline: number
  /** Wall-clock ms one call into the program may run (so one call cannot hold the event loop long). */
  callBudgetMs: number
}

/** Why a sandbox call failed: the program threw, ran out of time or memory, or the interpreter broke. */
export type SandboxFailure = 'exception' | 'timeout' | 'memory' | 'crash'

/** A failed evaluation or call; the message is what the trace's caller sees. */
export class SandboxError extends Error {
  override readonly name = 'SandboxError'
  constructor(
    message: string,
    readonly failure: SandboxFailure,
  ) {
    super(message)
  }
}

/**
 * QuickJS's C stack limit (the emscripten shadow stack). Deep recursion in the program is mostly
 * bounded by V8's own stack first (docs/tracing.md, "Recursion"); this keeps QuickJS's check meaningful too.
 */
const MAX_STACK_BYTES = 512 * 1024

/** WebAssembly pages are 64 KiB. */
const WASM_PAGE_BYTES = 64 * 1024
/** The asyncify build's initial memory (Emscripten's INITIAL_MEMORY, 16 MiB): code data, stack, heap. */
const INITIAL_WASM_PAGES = (16 * 1024 * 1024) / WASM_PAGE_BYTES
/**
 * What the interpreter itself occupies of the WebAssembly memory (static data, the 5 MiB C stack, the
 * runtime and context): measured ~5.3 MiB, so a program gets about `memoryLimitBytes` on top of it.
 */
const INTERPRETER_BYTES = 6 * 1024 * 1024

/**
 * The internals of quickjs-emscripten 0.32.0 (pinned exactly in package.json) that an asynchronous
 * `callFunction` needs; the library offers only `evalCodeAsync` (~20 µs per call, it parses the
 * code each time). This is the body of its `evalCodeAsync` with `QTS_Call` in place of `QTS_Eval`.
 */
interface ContextInternals {
  ctx: { value: number }
  ffi: {
    QTS_ResolveException(ctx: number, value: number): number
    QTS_FreeValuePointer(ctx: number, value: number): void
  }
  memory: {
    toPointerArray(handles: QuickJSHandle[]): { value: number; dispose(): void }
    heapValueHandle(pointer: number): QuickJSHandle
  }
}

interface EmscriptenInternals {
  cwrap(name: string, returns: 'number', args: 'number'[], options: { async: true }): (...args: number[]) => Promise<number>
}

/** `WebAssembly.Memory`, typed here: the project's `lib` has no WebAssembly declarations. */
interface WasmMemoryInstance {
  grow(deltaPages: number): number
  readonly buffer: ArrayBuffer
}
const WasmMemory = (
  globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemoryInstance } }
).WebAssembly.Memory

/** A QuickJS context with limits, for one trace. Dispose it when the trace ends. */
export class Sandbox {
  private stopReason: string | undefined
  private callDeadline = Infinity
  /** Set by the interrupt handler: the reason the running call was interrupted. */
  private interrupted: 'timeout' | 'stopped' | undefined
  /** A host-level exception (V8 stack overflow, a WebAssembly trap) left QuickJS in an unknown state. */
  private broken = false
  private disposed = false
  private queue: Promise<unknown> = Promise.resolve()
  private readonly internals: ContextInternals
  private readonly callAsync: (...args: number[]) => Promise<number>

  private constructor(
    module: QuickJSAsyncWASMModule,
    readonly context: QuickJSAsyncContext,
    private readonly limits: SandboxLimits,
    private readonly memoryGrowth: { failed: boolean },
    private readonly wasmMemory: WasmMemoryInstance,
  ) {
    this.internals = context as unknown as ContextInternals
    const emscripten = (module.getFFI() as unknown as { module: EmscriptenInternals }).module
    this.callAsync = emscripten.cwrap('QTS_Call', 'number', ['number', 'number', 'number', 'number', 'number'], { async: true })
  }

  /** A fresh WebAssembly instance, runtime and context under `limits`. */
  static async create(limits: SandboxLimits): Promise<Sandbox> {
    // Below ~10 MiB the limit is the module's initial 16 MiB memory (a minimum the module declares).
    const maximum = Math.max(INITIAL_WASM_PAGES, Math.ceil((INTERPRETER_BYTES + limits.memoryLimitBytes) / WASM_PAGE_BYTES))
    const wasmMemory = new WasmMemory({ initial: INITIAL_WASM_PAGES, maximum })
    // Emscripten grows the heap through this method; a refusal means malloc fails inside QuickJS.
    const memoryGrowth = { failed: false }
    const grow = wasmMemory.grow.bind(wasmMemory)
    wasmMemory.grow = (delta: number): number => {
      try {
        return grow(delta)
      } catch (error) {
        memoryGrowth.failed = true
        throw error
      }
    }
    const module = await newQuickJSAsyncWASMModuleFromVariant(newVariant(RELEASE_ASYNC, { wasmMemory: wasmMemory as never }))
    const runtime = module.newRuntime()
    runtime.setMemoryLimit(limits.memoryLimitBytes)
    runtime.setMaxStackSize(MAX_STACK_BYTES)
    const context = runtime.newContext()
    const sandbox = new Sandbox(module, context, limits, memoryGrowth, wasmMemory)
    runtime.setInterruptHandler(() => sandbox.shouldInterrupt())
    return sandbox
  }

  /** Interrupts the running call (if any) and fails every later one with `reason`. */
  stop(reason: string): void {
    this.stopReason ??= reason
  }

  /** Evaluates a script (global code); the caller owns the returned handle. */
  evaluate(code: string, filename: string): Promise<QuickJSHandle> {
    return this.serialise(async () => {
      const result = await this.context.evalCodeAsync(code, filename)
      if (result.error) throw this.describeException(result.error)
      return result.value
    })
  }

  /**
   * The byte offset in the WebAssembly memory of the only occurrence of `marker` (at least 16 random
   * bytes the program wrote into an ArrayBuffer it keeps), or undefined. QuickJS never moves an
   * ArrayBuffer's bytes, so the host can then write into that buffer directly (see `view`).
   */
  locate(marker: Uint8Array): number | undefined {
    const heap = new Uint8Array(this.wasmMemory.buffer)
    let found: number | undefined
    for (let at = heap.indexOf(marker[0]!); at !== -1; at = heap.indexOf(marker[0]!, at + 1)) {
      let k = 1
      while (k < marker.length && heap[at + k] === marker[k]) k++
      if (k < marker.length) continue
      if (found !== undefined) return undefined
      found = at
    }
    return found
  }

  /** A DataView of the whole WebAssembly memory (a new one after the memory grew). */
  view(): DataView {
    if (this.heapView?.buffer !== this.wasmMemory.buffer) this.heapView = new DataView(this.wasmMemory.buffer)
    return this.heapView
  }
  private heapView: DataView | undefined

  /** Calls `fn` with `thisArg` and `args` (still owned by the caller); the caller owns the result. */
  call(fn: QuickJSHandle, thisArg: QuickJSHandle, args: QuickJSHandle[]): Promise<QuickJSHandle> {
    return this.serialise(async () => {
      const { ctx, ffi, memory } = this.internals
      // No arguments: no argv array to allocate (the per-opcode path).
      const argv = args.length > 0 ? memory.toPointerArray(args) : undefined
      let pointer: number
      try {
        pointer = await this.callAsync(ctx.value, fn.value, thisArg.value, args.length, argv?.value ?? 0)
      } finally {
        argv?.dispose()
      }
      const errorPointer = ffi.QTS_ResolveException(ctx.value, pointer)
      if (errorPointer) {
        ffi.QTS_FreeValuePointer(ctx.value, pointer)
        throw this.describeException(memory.heapValueHandle(errorPointer))
      }
      return memory.heapValueHandle(pointer)
    })
  }

  /**
   * Frees the interpreter. The WebAssembly instance itself is dropped for the garbage collector (its
   * memory goes with it): quickjs-emscripten 0.32.0 frees an async runtime after forgetting its
   * callbacks, so `runtime.dispose()` with host functions installed throws, and a broken instance
   * cannot be freed at all. A call still running is interrupted first; `release` (freeing the
   * caller's handles) and the context's disposal run after it.
   */
  dispose(release?: () => void): void {
    if (this.disposed) return
    this.disposed = true
    this.stopReason ??= 'sandbox disposed'
    void this.queue.then(() => {
      if (this.broken) return
      try {
        release?.()
        this.context.dispose()
      } catch {
        // The instance is dropped either way.
      }
    })
  }

  private shouldInterrupt(): boolean {
    if (this.stopReason !== undefined) {
      this.interrupted = 'stopped'
      return true
    }
    const now = Date.now()
    if (now > this.limits.deadline || now > this.callDeadline) {
      this.interrupted = 'timeout'
      return true
    }
    return false
  }

  /** Runs `task` after the previous call has finished, with a fresh per-call budget. */
  private serialise<T>(task: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.disposed) throw new SandboxError('sandbox disposed', 'crash')
      if (this.broken) throw new SandboxError('the tracer sandbox failed earlier', 'crash')
      if (this.stopReason !== undefined) throw new SandboxError(this.stopReason, 'timeout')
      if (Date.now() > this.limits.deadline) throw new SandboxError('execution timeout', 'timeout')
      this.interrupted = undefined
      this.memoryGrowth.failed = false
      this.callDeadline = Date.now() + this.limits.callBudgetMs
      try {
        return await task()
      } catch (error) {
        if (error instanceof SandboxError) throw error
        // A host exception thrown through the WebAssembly (V8's stack overflow on deep recursion, a
        // trap): QuickJS stopped mid-operation, so this instance is never entered again.
        this.broken = true
        const e = error instanceof Error ? error : new Error(String(error))
        throw new SandboxError(`${e.name}: ${e.message}`, 'crash')
      } finally {
        this.callDeadline = Infinity
      }
    }
    const next = this.queue.then(run, run)
    this.queue = next.catch(() => undefined)
    return next
  }

  /** Turns a QuickJS exception (consumed) into a SandboxError. */
  private describeException(handle: QuickJSHandle): SandboxError {
    let dumped: unknown
    let isNull = false
    try {
      isNull = this.context.sameValue(handle, this.context.null)
      dumped = isNull ? null : this.context.dump(handle)
    } catch {
      dumped = undefined
    } finally {
      handle.dispose()
    }
    if (this.interrupted === 'stopped') return new SandboxError(this.stopReason ?? 'execution stopped', 'timeout')
    if (this.interrupted === 'timeout') return new SandboxError('execution timeout', 'timeout')
    const error =
      typeof dumped === 'object' && dumped !== null ? (dumped as { name?: unknown; message?: unknown; stack?: unknown }) : undefined
    // QuickJS throws InternalError "out of memory" when an allocation fails, and null when even that
    // error cannot be allocated (the WebAssembly memory refused to grow during this call).
    if (
      (isNull && this.memoryGrowth.failed) ||
      dumped === undefined ||
      (error?.name === 'InternalError' && error.message === 'out of memory')
    ) {
      return new SandboxError('out of memory', 'memory')
    }
    if (error === undefined || typeof error.message !== 'string') return new SandboxError(describeThrown(dumped), 'exception')
    const name = typeof error.name === 'string' ? error.name : 'Error'
    const where = typeof error.stack === 'string' ? firstFrame(error.stack) : undefined
    return new SandboxError(`${name}: ${error.message}${where ? ` at ${where}` : ''}`, 'exception')
  }
}

/** A thrown non-Error value as text (`throw "boom"` → `boom`). */
function describeThrown(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** `step (tracer.js:3:20)` from QuickJS's `    at step (tracer.js:3:20)\n…`. */
function firstFrame(stack: string): string | undefined {
  const line = stack.split('\n').find((l) => l.trim().startsWith('at '))
  return line?.trim().slice(3)
}
