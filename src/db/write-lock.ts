/**
 * Runs writes one after the other: a write waits for the ones started before it to settle. The
 * application's Commit and the state pruner share one, so that a deletion the pruner decided and a
 * block's write of the same key reach LevelDB in the order they were decided.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(write: () => Promise<T>): Promise<T> {
    const result = this.tail.then(write)
    this.tail = result.catch(() => undefined)
    return result
  }
}
