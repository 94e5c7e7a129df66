/**
 * A worker's messages go out in batches: everything pushed during one turn of the event loop in one
 * message, in order, and at once when the batch is full or flushed.
 */
import { describe, expect, it } from 'vitest'
import { MessageBatch } from '../../../../src/evm/calls/message-batch.js'

function recorder(): { posted: number[][]; postMessage(batch: number[]): void } {
  const posted: number[][] = []
  return { posted, postMessage: (batch) => posted.push(batch) }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('MessageBatch', () => {
  it('posts what one turn pushed as one message, in order', async () => {
    const target = recorder()
    const batch = new MessageBatch(target, 10)
    batch.push(1)
    batch.push(2)
    batch.push(3)
    expect(target.posted).toEqual([])
    await nextTurn()
    expect(target.posted).toEqual([[1, 2, 3]])
    batch.push(4)
    await nextTurn()
    expect(target.posted).toEqual([[1, 2, 3], [4]])
  })

  it('posts at once when the batch is full', async () => {
    const target = recorder()
    const batch = new MessageBatch(target, 2)
    for (let i = 1; i <= 5; i++) batch.push(i)
    expect(target.posted).toEqual([
      [1, 2],
      [3, 4],
    ])
    await nextTurn()
    expect(target.posted).toEqual([[1, 2], [3, 4], [5]])
  })

  it('posts at once when flushed', () => {
    const target = recorder()
    const batch = new MessageBatch(target, 10)
    batch.push(1)
    batch.flush()
    batch.flush()
    expect(target.posted).toEqual([[1]])
  })

  it('posts nothing once cleared', async () => {
    const target = recorder()
    const batch = new MessageBatch(target, 10)
    batch.push(1)
    batch.clear()
    await nextTurn()
    expect(target.posted).toEqual([])
  })
})
