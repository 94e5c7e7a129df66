import { describe, expect, it } from 'vitest'
import { ADMIT_SLICE_MS, MAX_WAITING, PeerTxQueue } from '../../../src/p2p/peer-tx-queue.js'

/** A queue whose turns run when the test says, with a clock that advances 1 ms per submission. */
function makeQueue() {
  const submitted: string[] = []
  const turns: (() => void)[] = []
  let clock = 0
  const queue = new PeerTxQueue({
    submit: (raw) => {
      submitted.push(new TextDecoder().decode(raw))
      clock += 1
    },
    now: () => clock,
    defer: (fn) => void turns.push(fn),
  })
  const runTurn = (): void => turns.shift()!()
  return { queue, submitted, turns, runTurn }
}

const tx = (n: number) => [new TextEncoder().encode(`tx${n}`), `0x${n.toString(16).padStart(64, '0')}`] as const

describe('PeerTxQueue', () => {
  it('admits in arrival order, a slice of the clock per turn, and once per hash', () => {
    const { queue, submitted, turns, runTurn } = makeQueue()
    for (const n of [1, 2, 3, 4, 5]) expect(queue.push(...tx(n))).toBe(true)
    // The same transaction from another peer while it waits.
    expect(queue.push(...tx(2))).toBe(false)
    expect(submitted).toEqual([])
    expect(turns).toHaveLength(1)
    runTurn()
    // One turn: ADMIT_SLICE_MS of a clock that takes 1 ms per admission.
    expect(submitted).toEqual(['tx1', 'tx2', 'tx3'].slice(0, ADMIT_SLICE_MS))
    expect(turns).toHaveLength(1)
    while (turns.length > 0) runTurn()
    expect(submitted).toEqual(['tx1', 'tx2', 'tx3', 'tx4', 'tx5'])
    expect(queue.size).toBe(0)
    // Admitted, it may wait again (the pool decides whether it is known).
    expect(queue.push(...tx(2))).toBe(true)
  })

  it('refuses transactions beyond MAX_WAITING until some are admitted', () => {
    const { queue, runTurn } = makeQueue()
    for (let n = 0; n < MAX_WAITING; n++) queue.push(...tx(n))
    expect(queue.full).toBe(true)
    expect(queue.push(...tx(MAX_WAITING))).toBe(false)
    runTurn()
    expect(queue.full).toBe(false)
    expect(queue.push(...tx(MAX_WAITING))).toBe(true)
  })
})
