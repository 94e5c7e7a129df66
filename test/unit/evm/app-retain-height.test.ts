/**
 * The retain height the application's Commit returns (`min-retain-blocks`, as Cosmos SDK's
 * GetBlockRetentionHeight): height - n + 1, never above height - evidence.max_age_num_blocks nor above the
 * retain-floor hook (a state-sync snapshot still offered), 0 when keeping everything.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type Harness, blockHash, consensusParams, createHarness, PROPOSER } from './helpers.js'

/** The retain heights Commit returned for heights 1..count. */
async function retainHeights(h: Harness, count: number): Promise<number[]> {
  const out: number[] = []
  for (let height = 1; height <= count; height++) {
    await h.app.finalizeBlock({
      txs: [],
      decidedLastCommit: { round: 0, votes: [] },
      hash: blockHash(height),
      height,
      time: { seconds: 1_700_000_000 + height, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: PROPOSER,
    })
    out.push((await h.app.commit()).retainHeight)
  }
  return out
}

function withEvidenceAge(blocks: bigint) {
  const params = consensusParams()
  return { ...params, evidence: { ...params.evidence, maxAgeNumBlocks: blocks } }
}

describe('Commit retainHeight', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  it('is height - min-retain-blocks + 1 once above the first height', async () => {
    h = await createHarness({ params: withEvidenceAge(1n), app: { minRetainBlocks: 3 } })
    expect(await retainHeights(h, 6)).toEqual([0, 0, 0, 2, 3, 4])
  })

  it('stays at or below what evidence may still name', async () => {
    h = await createHarness({ params: withEvidenceAge(4n), app: { minRetainBlocks: 2 } })
    expect(await retainHeights(h, 7)).toEqual([0, 0, 0, 0, 0, 2, 3])
  })

  it('stays at or below the retain floor (a snapshot still offered)', async () => {
    h = await createHarness({ params: withEvidenceAge(1n), app: { minRetainBlocks: 2, retainFloor: () => 3 } })
    expect(await retainHeights(h, 6)).toEqual([0, 0, 2, 3, 3, 3])
  })

  it('is 0 when min-retain-blocks is 0 (keep everything)', async () => {
    h = await createHarness({ params: withEvidenceAge(1n), app: { minRetainBlocks: 0 } })
    expect(await retainHeights(h, 4)).toEqual([0, 0, 0, 0])
  })
})
