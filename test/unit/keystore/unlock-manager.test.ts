/**
 * The spec's "Account key in the key store" state table in the unlock manager, driven by a fake clock:
 * unlock, expiry at exactly the deadline, 0 = until lockAll, lock, re-unlock replacing the deadline, and
 * key bytes overwritten whenever the manager lets go of them. No sleeps.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_UNLOCK_SECONDS, UnlockManager } from '../../../src/keystore/unlock-manager.js'
import { FakeClock } from '../../helpers/fake-clock.js'

const A = '0x' + 'aa'.repeat(20)
const B = '0x' + 'bb'.repeat(20)
const key = (byte: number) => new Uint8Array(32).fill(byte)
const zero = new Uint8Array(32)

describe('UnlockManager', () => {
  let clock: FakeClock
  let m: UnlockManager
  beforeEach(() => {
    clock = new FakeClock()
    m = new UnlockManager(clock)
  })

  it('starts locked', () => {
    expect(m.isUnlocked(A)).toBe(false)
    expect(m.keyOf(A)).toBeUndefined()
    expect(m.unlockedAddresses()).toEqual([])
  })

  it('unlock holds the key (any address case) until exactly the deadline, then wipes it', () => {
    const k = key(7)
    m.unlock(A.toUpperCase().replace('0X', '0x'), k, 10)
    expect(m.keyOf(A)).toBe(k)
    expect(m.unlockedAddresses()).toEqual([A])
    clock.advance(9_999)
    expect(m.isUnlocked(A)).toBe(true)
    clock.advance(1)
    expect(m.isUnlocked(A)).toBe(false)
    expect(k).toEqual(zero)
    expect(clock.pending).toBe(0)
  })

  it('expires at the deadline even when the timer has not fired (read-time check)', () => {
    const k = key(3)
    m.unlock(A, k, 5)
    clock.skipWithoutTimers(5_000)
    expect(m.keyOf(A)).toBeUndefined()
    expect(k).toEqual(zero)
    expect(clock.pending).toBe(0) // dropping the entry cancelled its timer
  })

  it('defaults to 300 seconds', () => {
    expect(DEFAULT_UNLOCK_SECONDS).toBe(300)
    m.unlock(A, key(1))
    clock.advance(299_999)
    expect(m.isUnlocked(A)).toBe(true)
    clock.advance(1)
    expect(m.isUnlocked(A)).toBe(false)
  })

  it('0 seconds = until lockAll: no timer, no deadline', () => {
    const k = key(9)
    m.unlock(A, k, 0)
    expect(clock.pending).toBe(0)
    expect(m.isUnlockedUntilStop(A)).toBe(true)
    clock.advance(10 ** 12)
    expect(m.keyOf(A)).toBe(k)
    m.lockAll()
    expect(m.isUnlocked(A)).toBe(false)
    expect(k).toEqual(zero)
  })

  it('lock removes and wipes the key; locking a locked or unknown account is true too', () => {
    const k = key(5)
    m.unlock(A, k, 60)
    expect(m.isUnlockedUntilStop(A)).toBe(false)
    expect(m.lock(A)).toBe(true)
    expect(m.isUnlocked(A)).toBe(false)
    expect(k).toEqual(zero)
    expect(clock.pending).toBe(0)
    expect(m.lock(A)).toBe(true)
    expect(m.lock(B)).toBe(true)
  })

  it('re-unlocking replaces the key and the deadline (the old key is wiped, its timer cancelled)', () => {
    const first = key(1)
    const second = key(2)
    m.unlock(A, first, 10)
    clock.advance(8_000)
    m.unlock(A, second, 10)
    expect(first).toEqual(zero)
    expect(clock.pending).toBe(1)
    clock.advance(9_000) // past the first deadline (10 s), before the second (18 s)
    expect(m.keyOf(A)).toBe(second)
    clock.advance(1_000)
    expect(m.isUnlocked(A)).toBe(false)
    expect(second).toEqual(zero)
  })

  it('re-unlocking a forever-unlocked account with a duration gives it that deadline', () => {
    m.unlock(A, key(1), 0)
    m.unlock(A, key(2), 1)
    expect(m.isUnlockedUntilStop(A)).toBe(false)
    clock.advance(1_000)
    expect(m.isUnlocked(A)).toBe(false)
  })

  it('keeps accounts apart: one expiring leaves the other unlocked', () => {
    m.unlock(A, key(1), 1)
    m.unlock(B, key(2), 0)
    clock.advance(1_000)
    expect(m.unlockedAddresses()).toEqual([B])
  })

  it('lockAll wipes every key and cancels every timer', () => {
    const ka = key(1)
    const kb = key(2)
    m.unlock(A, ka, 30)
    m.unlock(B, kb, 0)
    m.lockAll()
    expect([ka, kb]).toEqual([zero, zero])
    expect(m.unlockedAddresses()).toEqual([])
    expect(clock.pending).toBe(0)
  })
})
