/**
 * Which tracer a debug_trace* request gets (geth `tracers.DefaultDirectory.New`): no name → the struct
 * logger with the request's options; a registered name → that tracer (noopTracer, the native tracers,
 * geth's named JavaScript tracers; muxTracer composes any of them); a string that holds a program →
 * a JavaScript tracer in the sandbox (tracing/js). Any other string is `tracer not found` (geth would
 * try to run it as a program and fail with a JavaScript ReferenceError).
 */
import type { Tracer, TracerFactory, TracerOptions } from './hooks.js'
import { createJsTracer, looksLikeJsTracer, namedJsTracers } from './js/index.js'
import { createMuxTracer, nativeTracers } from './native/index.js'
import { createNoopTracer } from './noop-tracer.js'
import { createStructLogger, type StructLoggerOptions } from './struct-logger.js'
import type { TraceBudget } from './trace-budget.js'
import { TracerNotFoundError } from './trace-errors.js'

/** The JavaScript tracer engine (tracing/js): a sandbox for programs, and geth's named JS tracers. */
export interface JsTracerEngine {
  createJsTracer(code: string, options: TracerOptions & { timeoutMs?: number }): Promise<Tracer>
  /** Name → program source. */
  namedJsTracers: Record<string, string>
  /** Whether a `tracer` string is a program rather than a name. */
  looksLikeJsTracer(tracer: string): boolean
}

/** The sandbox of tracing/js. */
export const defaultJsTracerEngine: JsTracerEngine = { createJsTracer, namedJsTracers, looksLikeJsTracer }

/** The tracer part of a request (geth TraceConfig: tracer, tracerConfig, the logger options, timeout). */
export interface TracerRequest {
  /** Name or JavaScript program; undefined or '' = the struct logger. */
  tracer: string | undefined
  tracerConfig: Record<string, unknown> | undefined
  structLogger: StructLoggerOptions
  /** The trace timeout, which a JavaScript tracer also applies to its own program. */
  timeoutMs: number
  /** The answer's byte budget, shared by the request's transactions; absent = uncapped. */
  budget?: TraceBudget
}

/** Fresh tracers for the transactions of one request. */
export interface TracerSource {
  /** A tracer for the next transaction. */
  next(): Promise<Tracer>
  /** Frees the tracer prepared up front when no transaction used it. */
  close(): void
}

/** Frees what a tracer holds outside the JS heap (a JavaScript tracer's sandbox), if anything. */
export function releaseTracer(tracer: Tracer): void {
  tracer.dispose?.()
}

/** The registered tracers for one request (JavaScript ones carry its timeout). */
function registryFor(req: TracerRequest, js: JsTracerEngine | undefined): Record<string, TracerFactory> {
  const registry: Record<string, TracerFactory> = { noopTracer: createNoopTracer }
  for (const [name, factory] of Object.entries(nativeTracers)) if (name !== 'muxTracer') registry[name] = factory
  if (js) {
    for (const [name, code] of Object.entries(js.namedJsTracers))
      registry[name] = (opts) => js.createJsTracer(code, { ...opts, timeoutMs: req.timeoutMs })
  }
  registry.muxTracer = createMuxTracer(registry)
  return registry
}

/**
 * Resolves the request's tracer. The first tracer is built at once, so an unknown name, a program that
 * does not compile or a bad `tracerConfig` fail the request before anything executes.
 */
export async function prepareTracer(req: TracerRequest, js: JsTracerEngine | undefined = defaultJsTracerEngine): Promise<TracerSource> {
  let make: () => Promise<Tracer>
  if (req.tracer === undefined || req.tracer === '') {
    make = async () => createStructLogger(req.structLogger, req.budget)
  } else {
    const registry = registryFor(req, js)
    const factory = Object.hasOwn(registry, req.tracer) ? registry[req.tracer] : undefined
    const options: TracerOptions = { tracerConfig: req.tracerConfig }
    if (factory) make = async () => factory(options)
    else if (js?.looksLikeJsTracer(req.tracer)) make = () => js.createJsTracer(req.tracer!, { ...options, timeoutMs: req.timeoutMs })
    else throw new TracerNotFoundError()
  }
  let first: Tracer | undefined = await make()
  return {
    async next() {
      const tracer = first ?? (await make())
      first = undefined
      return tracer
    },
    close() {
      if (first) releaseTracer(first)
      first = undefined
    },
  }
}
