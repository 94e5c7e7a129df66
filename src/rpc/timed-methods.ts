/**
 * Method tables whose handlers report each call's outcome and duration (the node's `rpc_*` metrics,
 * geth's `rpc/handler.go`): a call counts once its arguments decoded, as geth counts it, and succeeds
 * when the handler returns a result. Only built when metrics are on: the tables served otherwise are
 * the plain ones.
 */
import type { MethodDef, MethodTable } from './method-table.js'

/** Told of every call a timed table answers. */
export interface MethodCallObserver {
  /** `method` answered (`ok`: with a result, else with an error) after `seconds`. */
  observe(method: string, ok: boolean, seconds: number): void
}

/** `tables` with every handler timed for `observer`. */
export function timeMethods(tables: readonly MethodTable[], observer: MethodCallObserver): MethodTable[] {
  return tables.map((table) => table.map((def) => timeMethod(def, observer)))
}

function timeMethod(def: MethodDef, observer: MethodCallObserver): MethodDef {
  const { name, handler } = def
  return {
    ...def,
    handler(args, ctx) {
      const start = performance.now()
      const done = (ok: boolean): void => observer.observe(name, ok, (performance.now() - start) / 1000)
      let result: unknown
      try {
        result = handler.call(def, args, ctx)
      } catch (err) {
        done(false)
        throw err
      }
      if (!(result instanceof Promise)) {
        done(true)
        return result
      }
      return result.then(
        (value: unknown) => {
          done(true)
          return value
        },
        (err: unknown) => {
          done(false)
          throw err
        },
      )
    },
  }
}
