/**
 * geth's `muxTracer` (eth/tracers/native/mux.go): several tracers over one execution. tracerConfig maps
 * tracer names to their own tracerConfig (`{"callTracer": {"withLog": true}, "4byteTracer": {}}`); the
 * result maps the same names to each tracer's result, names in ascending order as geth's JSON map.
 * Tracers are looked up in a registry given at construction, so the debug namespace can compose the
 * struct logger and JavaScript tracers too.
 */
import { TracerConfigError, type Tracer, type TracerFactory, type TraceHooks } from '../hooks.js'
import { requireConfigObject } from './tracer-config.js'

/** Name → factory; read when a mux tracer is built, so entries added later (the mux itself) are found. */
export type TracerRegistry = Readonly<Record<string, TracerFactory>>

type Hook = (...args: never[]) => void | Promise<void>

function isPromiseLike(value: unknown): value is PromiseLike<void> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<void>).then === 'function'
}

/** Calls `hooks` in order, awaiting a returned promise before the next; undefined when there are none. */
function chain<H extends Hook>(hooks: H[]): H | undefined {
  if (hooks.length === 0) return undefined
  if (hooks.length === 1) return hooks[0]
  const finish = async (pending: PromiseLike<void>, next: number, args: Parameters<H>): Promise<void> => {
    await pending
    for (let i = next; i < hooks.length; i++) await hooks[i]!(...args)
  }
  // Stays synchronous until some hook returns a promise, so synchronous tracers cost no microtasks.
  const run = ((...args: Parameters<H>) => {
    for (let i = 0; i < hooks.length; i++) {
      const pending = hooks[i]!(...args)
      if (isPromiseLike(pending)) return finish(pending, i + 1, args)
    }
    return undefined
  }) as H
  return run
}

/** The `name` hook of every tracer that has one, bound to its tracer. */
function hooksOf<K extends keyof TraceHooks>(tracers: Tracer[], name: K): NonNullable<TraceHooks[K]>[] {
  return tracers.flatMap((t) => (t[name] ? [(t[name] as Hook).bind(t) as NonNullable<TraceHooks[K]>] : []))
}

/** A muxTracer factory that builds the named tracers from `registry`. */
export function createMuxTracer(registry: TracerRegistry): TracerFactory {
  return async ({ tracerConfig }) => {
    const config = requireConfigObject('muxTracer', tracerConfig)
    const names = Object.keys(config).sort()
    const tracers: Tracer[] = []
    for (const name of names) {
      const factory = Object.hasOwn(registry, name) ? registry[name] : undefined
      if (!factory) throw new TracerConfigError(`invalid tracerConfig for muxTracer: unknown tracer ${JSON.stringify(name)}`)
      const sub = config[name]
      if (sub !== undefined && sub !== null && (typeof sub !== 'object' || Array.isArray(sub))) {
        throw new TracerConfigError(`invalid tracerConfig for muxTracer: the config of ${name} must be an object`)
      }
      tracers.push(await factory({ tracerConfig: (sub ?? undefined) as Record<string, unknown> | undefined }))
    }
    const mux: Tracer = {
      result: async () => {
        const out: Record<string, unknown> = {}
        for (let i = 0; i < tracers.length; i++) out[names[i]!] = await tracers[i]!.result()
        return out
      },
      stop: (reason) => {
        for (const t of tracers) t.stop?.(reason)
      },
    }
    // Only the hooks some tracer has: an onOpcode hook slows execution even when it does nothing.
    const onTxStart = chain(hooksOf(tracers, 'onTxStart'))
    const onEnter = chain(hooksOf(tracers, 'onEnter'))
    const onExit = chain(hooksOf(tracers, 'onExit'))
    const onOpcode = chain(hooksOf(tracers, 'onOpcode'))
    const onFault = chain(hooksOf(tracers, 'onFault'))
    const onLog = chain(hooksOf(tracers, 'onLog'))
    const onTxEnd = chain(hooksOf(tracers, 'onTxEnd'))
    return Object.assign(mux, {
      ...(onTxStart && { onTxStart }),
      ...(onEnter && { onEnter }),
      ...(onExit && { onExit }),
      ...(onOpcode && { onOpcode }),
      ...(onFault && { onFault }),
      ...(onLog && { onLog }),
      ...(onTxEnd && { onTxEnd }),
    })
  }
}
