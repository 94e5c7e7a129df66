/** Values that are sometimes at hand and sometimes on their way, without a promise for the first. */

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>

/** `fn` applied to `value`: at once when it is at hand, else when it resolves. */
export function mapAwaitable<T, U>(value: Awaitable<T>, fn: (value: T) => U): Awaitable<U> {
  return value instanceof Promise ? value.then(fn) : fn(value)
}
