/**
 * `Promise.withResolvers` (ES2024) arrived in Node 22; the libp2p stack (it-queue, under the peer store's
 * locks) calls it. On Node 20 this module supplies the standard behaviour; imported for its effect only.
 */
interface Resolvers<T> {
  promise: Promise<T>
  resolve: (value: T | PromiseLike<T>) => void
  reject: (reason?: unknown) => void
}

const PromiseWithResolvers = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> }

PromiseWithResolvers.withResolvers ??= <T>(): Resolvers<T> => {
  let resolve!: Resolvers<T>['resolve']
  let reject!: Resolvers<T>['reject']
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
