/**
 * The evidence pool against a real chain (a single validator's committed blocks in LevelDB): every
 * verification rule of CometBFT's `VerifyDuplicateVote` and pool `verify` with real ed25519 signatures,
 * expiry, persistence across reopening the database, conflicting votes from consensus, block checks, and
 * a running engine putting pending evidence into a proposal.
 */
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BlockStore } from '../../../src/comet/block-store.js'
import { hashEvidence } from '../../../src/comet/hash.js'
import { blockIdKey } from '../../../src/comet/part-set.js'
import { SignedMsgType, type DuplicateVoteEvidence, type Vote } from '../../../src/comet/types.js'
import { MisbehaviorType, type PrepareProposalRequest } from '../../../src/abci/application.js'
import { maxDataBytes } from '../../../src/consensus/block-executor.js'
import type { ChainState } from '../../../src/consensus/chain-state.js'
import type { ConsensusEvents } from '../../../src/consensus/events.js'
import { InvalidEvidenceError, evidenceListSize, verifyDuplicateVote } from '../../../src/consensus/evidence.js'
import { EvidencePool } from '../../../src/consensus/evidence-pool.js'
import { StateStore } from '../../../src/consensus/state-store.js'
import { Database } from '../../../src/db/database.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { addMillis } from '../../../src/utils/time.js'
import { makeEvidence, signVote, type EvidenceSpec } from './evidence-helpers.js'
import { CHAIN_ID, makeGenesis, makeKeys, makeTempDir, nodeFolderPerTest, removeDir, startNode, waitFor, type TestNode } from './helpers.js'

const keys = makeKeys(2)
const KEY = keys[0]!
const OUTSIDER = keys[1]!

describe('evidence pool verification and storage', () => {
  let dir: string
  let node: TestNode
  let state: ChainState

  beforeEach(async () => {
    dir = await makeTempDir()
    node = await startNode({ dir, genesis: makeGenesis([KEY]), key: KEY })
    await waitFor(() => node.engine.height >= 4, 'height 4')
    // A still chain: the pool is driven by hand from here.
    await node.engine.stop()
    state = (await node.engine.stateStore.load())!
  })
  afterEach(async () => {
    await node.stop()
    await removeDir(dir)
  })

  /** A pool over `db` (the node's, or the same files reopened) with the stored state, `over` applied. */
  async function openPool(over: Partial<ChainState> = {}, db = node.db): Promise<EvidencePool> {
    const blockStore = new BlockStore(db)
    await blockStore.open()
    return EvidencePool.open({ db, blockStore, stateStore: new StateStore(db), state: { ...state, ...over }, logger: silentLogger })
  }

  /** Valid evidence of KEY for `height` (precommits, powers 10 of 10, the block's time). */
  async function evidenceAt(height: number, over: Partial<EvidenceSpec> = {}): Promise<DuplicateVoteEvidence> {
    const meta = await node.blockStore.loadBlockMeta(height)
    return makeEvidence({
      key: KEY,
      chainId: CHAIN_ID,
      height,
      blockTime: meta!.header.time,
      validatorPower: 10n,
      totalVotingPower: 10n,
      ...over,
    })
  }

  /** Re-signs both votes after a change (so only the intended rule fails). */
  function resign(ev: DuplicateVoteEvidence, a: Partial<Vote>, b: Partial<Vote>, key = KEY): DuplicateVoteEvidence {
    return { ...ev, voteA: signVote(key, CHAIN_ID, { ...ev.voteA, ...a }), voteB: signVote(key, CHAIN_ID, { ...ev.voteB, ...b }) }
  }

  it('accepts valid evidence once: pending, listed for proposals; adding it again is a no-op', async () => {
    const pool = await openPool()
    const ev = await evidenceAt(2)
    await pool.add(ev)
    await pool.add(ev)
    expect(pool.size).toBe(1)
    expect(pool.pendingEvidence(-1)).toEqual({ evidence: [ev], size: evidenceListSize([ev]) })
    // Prevotes are evidence too.
    await pool.add(await evidenceAt(3, { type: SignedMsgType.Prevote }))
    expect(pool.size).toBe(2)
  })

  it('refuses evidence breaking each rule, with CometBFT reasons', async () => {
    const pool = await openPool()
    const ev = await evidenceAt(3)
    const above = state.lastBlockHeight + 1
    const meta2 = (await node.blockStore.loadBlockMeta(2))!
    const cases: [string, DuplicateVoteEvidence, string][] = [
      ['height above the chain', resign(ev, { height: above }, { height: above }), `don't have header #${above}`],
      [
        'timestamp not the block time',
        { ...ev, timestamp: addMillis(ev.timestamp, 1) },
        'evidence has a different time to the block it is associated with',
      ],
      [
        'not a validator at that height',
        await evidenceAt(3, { key: OUTSIDER }),
        `address ${Buffer.from(OUTSIDER.address).toString('hex').toUpperCase()} was not a validator at height 3`,
      ],
      [
        'different heights',
        resign(ev, {}, { height: 2, timestamp: meta2.header.time }),
        'h/r/s does not match: 3/0/SIGNED_MSG_TYPE_PRECOMMIT vs 2/0/SIGNED_MSG_TYPE_PRECOMMIT',
      ],
      [
        'different rounds',
        resign(ev, {}, { round: 1 }),
        'h/r/s does not match: 3/0/SIGNED_MSG_TYPE_PRECOMMIT vs 3/1/SIGNED_MSG_TYPE_PRECOMMIT',
      ],
      [
        'different types',
        resign(ev, {}, { type: SignedMsgType.Prevote }),
        'h/r/s does not match: 3/0/SIGNED_MSG_TYPE_PRECOMMIT vs 3/0/SIGNED_MSG_TYPE_PREVOTE',
      ],
      [
        'different validators',
        { ...ev, voteB: signVote(OUTSIDER, CHAIN_ID, { ...ev.voteB, validatorAddress: OUTSIDER.address }) },
        'validator addresses do not match',
      ],
      ['votes out of order', { ...ev, voteA: ev.voteB, voteB: ev.voteA }, 'duplicate votes in invalid order'],
      ['validator power', { ...ev, validatorPower: 9n }, 'validator power from evidence and our validator set does not match (9 != 10)'],
      [
        'total power',
        { ...ev, totalVotingPower: 11n },
        'total voting power from the evidence and our validator set does not match (11 != 10)',
      ],
      ['vote A signature', { ...ev, voteA: { ...ev.voteA, signature: ev.voteB.signature } }, 'verifying VoteA: invalid signature'],
      ['vote B signature', { ...ev, voteB: { ...ev.voteB, signature: new Uint8Array(64).fill(7) } }, 'verifying VoteB: invalid signature'],
      ['signed for another chain', { ...ev, voteA: signVote(KEY, 'other-chain', ev.voteA) }, 'verifying VoteA: invalid signature'],
      ['a malformed vote', { ...ev, voteB: { ...ev.voteB, signature: new Uint8Array(0) } }, 'invalid VoteB: signature is missing'],
    ]
    for (const [what, bad, reason] of cases) {
      const err = await pool.add(bad).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err, what).toBeInstanceOf(InvalidEvidenceError)
      expect((err as Error).message, what).toContain(`Invalid evidence: ${reason}`)
    }
    expect(pool.size).toBe(0)
    // Identical BlockIDs fail the order check first; VerifyDuplicateVote names them on its own.
    const same = resign(ev, {}, { blockId: ev.voteA.blockId, timestamp: addMillis(ev.voteA.timestamp, 5) })
    const set = (await node.engine.stateStore.loadValidators(3))!
    expect(() => verifyDuplicateVote(same, CHAIN_ID, set)).toThrow('- not a real duplicate vote')
    expect(() => verifyDuplicateVote(ev, CHAIN_ID, set)).not.toThrow()
  })

  it('expires evidence only when both max_age_num_blocks and max_age_duration are exceeded', async () => {
    const params = state.consensusParams.evidence
    const ev = await evidenceAt(1)
    const expired = await openPool({
      consensusParams: { ...state.consensusParams, evidence: { ...params, maxAgeNumBlocks: 1n, maxAgeDurationNs: 1n } },
    })
    await expect(expired.add(ev)).rejects.toThrow(
      /Invalid evidence: evidence from height 1 \(created at: .*\) is too old; min height is \d+ and evidence can not be older than/,
    )
    const oldInBlocksOnly = await openPool({ consensusParams: { ...state.consensusParams, evidence: { ...params, maxAgeNumBlocks: 1n } } })
    await oldInBlocksOnly.add(ev)
    const oldInTimeOnly = await openPool({ consensusParams: { ...state.consensusParams, evidence: { ...params, maxAgeDurationNs: 1n } } })
    await oldInTimeOnly.add(ev)
    expect(oldInTimeOnly.size).toBe(1)
  })

  it('keeps pending evidence across reopening the database and prunes it once expired', async () => {
    const pool = await openPool()
    const [ev2, ev3] = [await evidenceAt(2), await evidenceAt(3)]
    await pool.add(ev2)
    await node.db.close()
    const db = new Database({ path: join(dir, 'db') })
    await db.open()
    const withParams = (maxAgeNumBlocks: bigint, maxAgeDurationNs: bigint): Partial<ChainState> => ({
      consensusParams: { ...state.consensusParams, evidence: { ...state.consensusParams.evidence, maxAgeNumBlocks, maxAgeDurationNs } },
    })
    try {
      expect((await openPool({}, db)).pendingEvidence(-1).evidence).toEqual([ev2])
      // Not expired in blocks yet: kept; CometBFT's next prune is due after height 2 + max + 1 and its time + max + 1 s.
      const atLimit = withParams(BigInt(state.lastBlockHeight - 2), 1n)
      const reopened = await openPool(atLimit, db)
      expect(reopened.size).toBe(1)
      await reopened.update(
        { ...state, ...atLimit, lastBlockHeight: state.lastBlockHeight + 1, lastBlockTime: addMillis(state.lastBlockTime, 2000) },
        [],
      )
      expect(reopened.size).toBe(1)
      await reopened.update(
        { ...state, ...atLimit, lastBlockHeight: state.lastBlockHeight + 2, lastBlockTime: addMillis(state.lastBlockTime, 2100) },
        [],
      )
      expect(reopened.size).toBe(0)
      expect((await openPool({}, db)).size).toBe(0)
      // Opening the pool prunes what expired while it was closed.
      await (await openPool({}, db)).add(ev3)
      expect((await openPool(withParams(0n, 1n), db)).size).toBe(0)
      expect((await openPool({}, db)).size).toBe(0)
    } finally {
      await db.close()
    }
  })

  it('lists pending evidence oldest first within max_bytes', async () => {
    const pool = await openPool()
    const [ev3, ev2] = [await evidenceAt(3), await evidenceAt(2)]
    await pool.add(ev3)
    await pool.add(ev2)
    const one = evidenceListSize([ev2])
    expect(pool.pendingEvidence(-1).evidence).toEqual([ev2, ev3])
    expect(pool.pendingEvidence(one)).toEqual({ evidence: [ev2], size: one })
    expect(pool.pendingEvidence(one - 1)).toEqual({ evidence: [], size: 0 })
  })

  it('checks block evidence: valid new evidence becomes pending; duplicates, committed and invalid evidence are refused', async () => {
    const pool = await openPool()
    const ev = await evidenceAt(2)
    await pool.checkEvidence([ev])
    expect(pool.size).toBe(1)
    await expect(pool.checkEvidence([ev, ev])).rejects.toThrow('Invalid evidence: duplicate evidence')
    await expect(pool.checkEvidence([{ ...ev, validatorPower: 3n }])).rejects.toThrow(
      'validator power from evidence and our validator set does not match (3 != 10)',
    )
    // Committed in block 5 (staged with the engine's state of that block), then Update: no longer pending, refused from now on.
    const stage = node.db.createStage()
    pool.stageCommitted(stage, [ev], 5)
    await stage.write()
    await pool.update({ ...state, lastBlockHeight: state.lastBlockHeight + 1 }, [ev])
    expect(pool.size).toBe(0)
    await expect(pool.checkEvidence([ev])).rejects.toThrow('Invalid evidence: evidence was already committed')
    await expect(pool.add(ev)).rejects.toThrow('Invalid evidence: evidence was already committed')
    // Still refused after a restart.
    await expect((await openPool()).add(ev)).rejects.toThrow('evidence was already committed')
  })

  it('turns conflicting votes reported by consensus into evidence once their height is committed', async () => {
    const pool = await openPool()
    const spec = await evidenceAt(3, { type: SignedMsgType.Prevote })
    const [a, b] = [spec.voteB, spec.voteA]
    pool.reportConflictingVotes(a, b)
    pool.reportConflictingVotes(a, b)
    pool.reportConflictingVotes(b, a)
    const next = { ...state, lastBlockHeight: state.lastBlockHeight + 1 }
    // Votes of a height above the state are dropped.
    pool.reportConflictingVotes({ ...a, height: next.lastBlockHeight + 1 }, { ...b, height: next.lastBlockHeight + 1 })
    await pool.update(next, [])
    const { evidence } = pool.pendingEvidence(-1)
    expect(evidence).toHaveLength(1)
    // NewDuplicateVoteEvidence: ordered by BlockID key, powers from the set, the block time of height 3.
    expect(evidence[0]).toEqual(spec)
    expect(blockIdKey(evidence[0]!.voteA.blockId) < blockIdKey(evidence[0]!.voteB.blockId)).toBe(true)
    // At the state's own height the evidence takes the state's last block time and last validators.
    const h = next.lastBlockHeight + 1
    const at = { ...next, lastBlockHeight: h, lastBlockTime: addMillis(next.lastBlockTime, 7), lastValidators: state.validators }
    const own = makeEvidence({
      key: KEY,
      chainId: CHAIN_ID,
      height: h,
      blockTime: at.lastBlockTime,
      validatorPower: 10n,
      totalVotingPower: 10n,
    })
    pool.reportConflictingVotes(own.voteA, own.voteB)
    await pool.update(at, [])
    expect(pool.pendingEvidence(-1).evidence).toContainEqual(own)
  })
})

describe('evidence in proposals of a running validator', () => {
  const folder = nodeFolderPerTest()
  let node: TestNode

  it('proposes pending evidence (header hash, max data bytes, ABCI misbehavior), commits it once and emits NewEvidence', async () => {
    node = await folder.start({ genesis: makeGenesis([KEY]), key: KEY })
    const n = node
    await waitFor(() => n.engine.height >= 2, 'height 2')
    const prepare = vi.spyOn(n.app, 'prepareProposal')
    const finalize = vi.spyOn(n.app, 'finalizeBlock')
    const seen: ConsensusEvents['NewEvidence'][] = []
    n.engine.events.on('NewEvidence', (e) => seen.push(e))
    const meta = (await n.blockStore.loadBlockMeta(2))!
    const ev = makeEvidence({
      key: KEY,
      chainId: CHAIN_ID,
      height: 2,
      blockTime: meta.header.time,
      validatorPower: 10n,
      totalVotingPower: 10n,
    })
    await n.engine.addEvidence(ev)
    await waitFor(() => seen.length > 0, 'NewEvidence')
    const { height } = seen[0]!
    expect(seen).toEqual([{ height, evidence: ev }])
    const block = (await n.blockStore.loadBlock(height))!
    expect(block.evidence).toEqual([ev])
    expect(block.header.evidenceHash).toEqual(hashEvidence([ev]))
    const prepared = prepare.mock.calls.map((c) => c[0] as PrepareProposalRequest).find((r) => r.height === height)!
    expect(prepared.maxTxBytes).toBe(maxDataBytes(Number(n.engine.getState().consensusParams.block.maxBytes), evidenceListSize([ev]), 1))
    const misbehavior = [
      {
        type: MisbehaviorType.DuplicateVote,
        validator: { address: KEY.address, power: 10n },
        height: 2,
        time: meta.header.time,
        totalVotingPower: 10n,
      },
    ]
    expect(prepared.misbehavior).toEqual(misbehavior)
    expect(finalize.mock.calls.map((c) => c[0]).find((r) => r.height === height)!.misbehavior).toEqual(misbehavior)
    expect(n.engine.pendingEvidenceCount).toBe(0)
    await expect(n.engine.addEvidence(ev)).rejects.toThrow('Invalid evidence: evidence was already committed')
    // Later blocks carry no evidence again.
    await waitFor(() => n.engine.height >= height + 2, 'two more heights')
    expect((await n.blockStore.loadBlock(height + 1))!.evidence).toEqual([])
  })
})
