/**
 * DevMining's timestamps (docs/dev-chain.md, "Mining"): evm_mine(ts) sets the first block's, anvil_mine's
 * interval each later one's from the block before it, through the header overrides, before each block of
 * the engine's run is built.
 */
import { describe, expect, it } from 'vitest'
import type { ConsensusEngine } from '../../../src/consensus/index.js'
import type { MineRun } from '../../../src/consensus/mining-control.js'
import type { EvmApplication } from '../../../src/evm/app.js'
import { DevMining } from '../../../src/node/dev-mining.js'
import { silentLogger } from '../../../src/utils/logger.js'

/** An engine whose run "commits" each block with the timestamp queued for it (else the previous + 0). */
function fakeChain() {
  const timestamps: number[] = [1000]
  let next: bigint | undefined
  const engine = {
    mine: async (run: MineRun) => {
      for (let i = 0; i < run.blocks; i++) {
        await run.beforeBlock?.(i)
        timestamps.push(next === undefined ? timestamps.at(-1)! : Number(next))
        next = undefined
      }
    },
  } as unknown as ConsensusEngine
  const app = {
    latestHeight: () => timestamps.length - 1,
    getBlock: async (height: number) => ({ timestamp: timestamps[height] }),
  } as unknown as EvmApplication
  const headers = { setNextTimestamp: (ts: bigint) => (next = ts) }
  return { timestamps, mining: new DevMining({ automine: true }, engine, app, silentLogger, headers) }
}

describe('DevMining timestamps', () => {
  it('evm_mine(ts): the first block at ts, the next ones a second apart', async () => {
    const { timestamps, mining } = fakeChain()
    await mining.mine(3, { timestamp: 5000n, interval: 1n })
    expect(timestamps.slice(1)).toEqual([5000, 5001, 5002])
  })

  it('anvil_mine(n, interval): the first block on the chain clock, the next ones interval apart', async () => {
    const { timestamps, mining } = fakeChain()
    await mining.mine(3, { interval: 12n })
    expect(timestamps.slice(1)).toEqual([1000, 1012, 1024])
  })

  it('interval 0 (viem default) and no interval keep the chain clock', async () => {
    const { timestamps, mining } = fakeChain()
    await mining.mine(2, { interval: 0n })
    await mining.mine(2, {})
    expect(timestamps.slice(1)).toEqual([1000, 1000, 1000, 1000])
  })

  it('without header overrides, a timestamp is refused', async () => {
    const mining = new DevMining({ automine: true }, {} as ConsensusEngine, {} as EvmApplication, silentLogger)
    await expect(mining.mine(1, { timestamp: 1n })).rejects.toThrow('block timestamps cannot be set on this node')
  })
})
