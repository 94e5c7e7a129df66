/**
 * The helpers of `@nomicfoundation/hardhat-network-helpers` (`loadFixture`, `takeSnapshot`, `mine`,
 * `time.latest/increase/increaseTo`), made over viem's test client: the same JSON-RPC calls in the
 * same order, so a test written with them asks a node what a Hardhat project's tests ask. (Hardhat
 * itself needs Node.js 22 and downloads compilers.)
 */
import type { PublicClient, TestClient } from 'viem'

/** A snapshot `restore` can go back to any number of times (each restore takes a new one). */
export interface SnapshotRestorer {
  restore(): Promise<void>
  snapshotId: string
}

export interface NetworkHelpers {
  takeSnapshot(): Promise<SnapshotRestorer>
  /**
   * Runs `fixture` the first time and snapshots the chain after it; later calls go back to that
   * snapshot and return the fixture's first answer (snapshots taken after it are forgotten).
   */
  loadFixture<T>(fixture: () => Promise<T>): Promise<T>
  /** `blocks` blocks, each after the first `interval` seconds after the previous one. */
  mine(blocks?: number, options?: { interval?: number }): Promise<void>
  time: {
    /** The latest block's timestamp (s). */
    latest(): Promise<number>
    /** Mines a block `seconds` after the latest; returns its timestamp. */
    increase(seconds: number): Promise<number>
    /** Mines a block at `timestamp`. */
    increaseTo(timestamp: number): Promise<void>
  }
}

interface FixtureSnapshot {
  fixture: () => Promise<unknown>
  restorer: SnapshotRestorer
  data: unknown
}

export function networkHelpers(test: TestClient, client: PublicClient): NetworkHelpers {
  let fixtures: FixtureSnapshot[] = []

  const takeSnapshot = async (): Promise<SnapshotRestorer> => {
    const restorer: SnapshotRestorer = {
      snapshotId: await test.request({ method: 'evm_snapshot' }),
      restore: async () => {
        const reverted: unknown = await test.request({ method: 'evm_revert', params: [restorer.snapshotId as `0x${string}`] })
        if (reverted !== true) throw new Error(`evm_revert(${restorer.snapshotId}) answered ${String(reverted)}: an invalid snapshot`)
        // A snapshot is used up by its revert: take it again so it can be restored again.
        restorer.snapshotId = await test.request({ method: 'evm_snapshot' })
      },
    }
    return restorer
  }

  const latest = async (): Promise<number> => Number((await client.getBlock({ blockTag: 'latest' })).timestamp)
  const mine = async (blocks = 1, options: { interval?: number } = {}): Promise<void> => {
    await test.mine({ blocks, ...(options.interval === undefined ? {} : { interval: options.interval }) })
  }

  return {
    takeSnapshot,
    loadFixture: async <T>(fixture: () => Promise<T>): Promise<T> => {
      const known = fixtures.find((f) => f.fixture === fixture)
      if (known) {
        // The helpers compare ids as numbers: the snapshots taken after this one are gone with the revert.
        const id = Number(known.restorer.snapshotId)
        fixtures = fixtures.filter((f) => Number(f.restorer.snapshotId) <= id)
        await known.restorer.restore()
        return known.data as T
      }
      const data = await fixture()
      fixtures.push({ fixture, restorer: await takeSnapshot(), data })
      return data
    },
    mine,
    time: {
      latest,
      increase: async (seconds) => {
        const target = (await latest()) + seconds
        await test.setNextBlockTimestamp({ timestamp: BigInt(target) })
        await mine()
        return target
      },
      increaseTo: async (timestamp) => {
        await test.setNextBlockTimestamp({ timestamp: BigInt(timestamp) })
        await mine()
      },
    },
  }
}
