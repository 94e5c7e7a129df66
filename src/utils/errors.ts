/**
 * Base of the node's expected failures: the message is meant for the caller (geth's texts on the EVM
 * side). Domain errors extend it with the fields a renderer needs and carry no wire code: each RPC
 * surface maps them to the wire in one table (api/evm-errors.ts, api/comet/errors.ts).
 */
export class NodeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** A class of errors (abstract ones included). */
export type ErrorClass<E extends Error = Error> = abstract new (...args: never[]) => E

/** One row of a surface's error table: a class of errors and what it becomes on that surface's wire. */
export interface ErrorRow<T> {
  readonly type: ErrorClass
  readonly render: (err: Error) => T
}

/** A row; `render` receives the error as an instance of `type`. */
export function errorRow<E extends Error, T>(type: ErrorClass<E>, render: (err: E) => T): ErrorRow<T> {
  return { type, render: render as (err: Error) => T }
}

/**
 * The lookup of an error table: the row of the error's own class, else of its nearest listed
 * ancestor (a subclass not listed reads as its parent); undefined when no class of its chain is listed.
 */
export function lookupError<T>(rows: readonly ErrorRow<T>[]): (err: unknown) => T | undefined {
  const byClass = new Map<unknown, (err: Error) => T>()
  for (const row of rows) {
    if (byClass.has(row.type)) throw new Error(`${row.type.name} is listed twice`)
    byClass.set(row.type, row.render)
  }
  return (err) => {
    if (!(err instanceof Error)) return undefined
    for (let type: unknown = err.constructor; type !== Error && type !== null; type = Object.getPrototypeOf(type)) {
      const render = byClass.get(type)
      if (render !== undefined) return render(err)
    }
    return undefined
  }
}

/** A configuration value that cannot be used; `key` names the flag or TOML key. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`)
    this.name = 'ConfigError'
  }
}
