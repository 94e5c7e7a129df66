/**
 * JavaScript tracers: a `tracer` string holding a program with geth's JS tracer API, run in a
 * QuickJS/WebAssembly sandbox with memory and time limits (sandbox.ts, js-tracer.ts), and geth's
 * named JS tracers as our own programs (named-tracers.ts).
 */
import type { Tracer, TracerOptions } from '../hooks.js'

export { namedJsTracers } from './named-tracers.js'

/** A bare name such as `callTracer`: never a program. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/**
 * True when a `tracer` string is to be run as a JS program rather than looked up as a name. geth runs
 * every string that is not a registered name as JS; we do so for strings that can hold a program (an
 * object literal has braces), so a mistyped name still reads "unknown tracer" while a program with a
 * syntax error gets its SyntaxError from createJsTracer.
 */
export function looksLikeJsTracer(s: string): boolean {
  const trimmed = s.trim()
  return trimmed !== '' && !IDENTIFIER.test(trimmed) && trimmed.includes('{')
}

/**
 * Compiles `code` (an expression evaluating to the tracer object) in a fresh sandbox and runs its
 * `setup(config)`. Fails with TracerConfigError when it does not compile, lacks `result`/`fault`,
 * has only one of `enter`/`exit`, or `setup` throws. `timeoutMs` (default 5000) bounds the whole
 * trace, `memoryLimitBytes` (default 32 MiB) the program's heap. The tracer frees its sandbox when
 * `result()` settles; a trace abandoned earlier should call its `dispose()`.
 */
export async function createJsTracer(
  code: string,
  options: TracerOptions & { timeoutMs?: number; memoryLimitBytes?: number },
): Promise<Tracer> {
  // Loaded on first use: QuickJS and its WebAssembly are not needed to start a node.
  const { buildJsTracer, defaultJsTracerLimits } = await import('./js-tracer.js')
  return buildJsTracer(code, options.tracerConfig, {
    timeoutMs: options.timeoutMs ?? defaultJsTracerLimits.timeoutMs,
    memoryLimitBytes: options.memoryLimitBytes ?? defaultJsTracerLimits.memoryLimitBytes,
  })
}
