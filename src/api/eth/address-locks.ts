/**
 * One-at-a-time sections per address: eth_sendTransaction without a nonce reads the pool's pending
 * nonce, signs and submits; two such calls for one sender running side by side would read the same
 * nonce and the second would replace (or bounce off) the first. geth holds `AddrLocker` for the same
 * span; calls for different senders still run in parallel.
 */
export class AddressLocks {
  /** The tail of each address's queue; removed when the queue empties. */
  private readonly tails = new Map<string, Promise<void>>()

  /** Runs `fn` once every earlier section for `address` has finished (whether it failed or not). */
  async run<T>(address: Uint8Array, fn: () => Promise<T>): Promise<T> {
    const id = Buffer.from(address).toString('hex')
    const previous = this.tails.get(id) ?? Promise.resolve()
    let release!: () => void
    const tail = new Promise<void>((resolve) => (release = resolve))
    this.tails.set(id, tail)
    await previous
    try {
      return await fn()
    } finally {
      release()
      if (this.tails.get(id) === tail) this.tails.delete(id)
    }
  }
}
