/**
 * Unlocked accounts of a running node: the spec's "Account key in the key store" state table.
 *
 *   locked   --personal_unlockAccount(correct passphrase, d)--> unlocked (key held decrypted; d = 0: until stop)
 *   unlocked --d seconds elapse-->                              locked   (key bytes overwritten)
 *   unlocked --personal_lockAccount-->                          locked   (key bytes overwritten)
 *
 * Time comes from an injectable {@link UnlockClock}, so tests drive expiry without sleeping. Expiry is
 * enforced twice: a timer wipes the key when it fires, and every read checks the deadline, so a key is
 * never used after its time even if the timer is late.
 */

/** The clock of the unlock manager. */
export interface UnlockClock {
  /** Milliseconds (any epoch, monotonic enough for durations). */
  now(): number
  /** Runs `fn` after `ms`; returns a function that cancels it. */
  schedule(ms: number, fn: () => void): () => void
}

/** Wall-clock time and `setTimeout` (unref'd: an unlocked key never keeps the process alive). */
export const systemClock: UnlockClock = {
  now: () => Date.now(),
  schedule(ms, fn) {
    const timer = setTimeout(fn, ms)
    timer.unref()
    return () => clearTimeout(timer)
  },
}

/** Default unlock duration of personal_unlockAccount (spec: 300 s). */
export const DEFAULT_UNLOCK_SECONDS = 300
/** The longest delay `setTimeout` takes (2^31 − 1 ms); longer unlocks are expired by the read-time check. */
const MAX_TIMER_MS = 2 ** 31 - 1

interface Unlocked {
  privateKey: Uint8Array
  /** undefined: until the node stops. */
  expiresAt: number | undefined
  cancel: (() => void) | undefined
}

export class UnlockManager {
  private readonly keys = new Map<string, Unlocked>()

  constructor(private readonly clock: UnlockClock = systemClock) {}

  /**
   * Holds `privateKey` for `address` for `seconds` (0 = until {@link lockAll}). The manager keeps the
   * bytes it is given and overwrites them on lock: callers hand over a copy they no longer use.
   * Unlocking an unlocked account replaces its key and deadline.
   */
  unlock(address: string, privateKey: Uint8Array, seconds: number = DEFAULT_UNLOCK_SECONDS): void {
    const id = address.toLowerCase()
    this.lock(id)
    const ms = seconds * 1000
    const entry: Unlocked = { privateKey, expiresAt: seconds > 0 ? this.clock.now() + ms : undefined, cancel: undefined }
    if (seconds > 0 && ms <= MAX_TIMER_MS) entry.cancel = this.clock.schedule(ms, () => this.expire(id, entry))
    this.keys.set(id, entry)
  }

  /** Locks `address`: its key bytes are overwritten and forgotten. True whether or not it was unlocked (geth). */
  lock(address: string): boolean {
    const id = address.toLowerCase()
    const entry = this.keys.get(id)
    if (entry) this.drop(id, entry)
    return true
  }

  /** The key of an unlocked account (do not keep or wipe it), undefined when locked or expired. */
  keyOf(address: string): Uint8Array | undefined {
    const id = address.toLowerCase()
    const entry = this.keys.get(id)
    if (!entry) return undefined
    if (entry.expiresAt !== undefined && this.clock.now() >= entry.expiresAt) {
      this.drop(id, entry)
      return undefined
    }
    return entry.privateKey
  }

  isUnlocked(address: string): boolean {
    return this.keyOf(address) !== undefined
  }

  /** True when `address` is unlocked until {@link lockAll} (duration 0, or a `--dev` account). */
  isUnlockedUntilStop(address: string): boolean {
    const entry = this.keys.get(address.toLowerCase())
    return entry !== undefined && entry.expiresAt === undefined
  }

  /** Addresses unlocked now (lower case). */
  unlockedAddresses(): string[] {
    return [...this.keys.keys()].filter((id) => this.isUnlocked(id))
  }

  /** Locks every account (node stop). */
  lockAll(): void {
    for (const [id, entry] of [...this.keys]) this.drop(id, entry)
  }

  private expire(id: string, entry: Unlocked): void {
    if (this.keys.get(id) === entry) this.drop(id, entry)
  }

  private drop(id: string, entry: Unlocked): void {
    entry.cancel?.()
    entry.privateKey.fill(0)
    this.keys.delete(id)
  }
}
