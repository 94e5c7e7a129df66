import { describe, expect, it } from 'vitest'
import { evmSyncStatus } from '../../../src/node/eth-backend.js'

describe('eth_syncing from the engine block-sync status', () => {
  it('is false (undefined) unless catching up', () => {
    expect(evmSyncStatus({ catchingUp: false, progress: undefined })).toBeUndefined()
    expect(evmSyncStatus({ catchingUp: false, progress: { startHeight: 3, height: 9, target: 9, blocksPerSecond: 40 } })).toBeUndefined()
  })

  it("gives geth's starting, current and highest block while block-syncing", () => {
    expect(evmSyncStatus({ catchingUp: true, progress: { startHeight: 3, height: 5, target: 90, blocksPerSecond: 40 } })).toEqual({
      startingBlock: 3,
      currentBlock: 5,
      highestBlock: 90,
    })
  })
})
