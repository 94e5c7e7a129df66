/**
 * A validator restarted after a crash that left its sign state ahead of its WAL (issue 27, severe 5) goes
 * on committing: its signer refuses the conflicting message (CometBFT FilePV), the refusal is logged, and
 * the round's timeouts move it to a round where it can sign. The same holds after a byte flipped in the
 * middle of the WAL: the file is saved as `<wal>.CORRUPTED`, cut before the damage (CometBFT's repair),
 * and the node commits again.
 */
import { readFile, rm, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SignedMsgType, type BlockID } from '../../../src/comet/types.js'
import { FilePV } from '../../../src/consensus/privval.js'
import { decodeWalRecords } from '../../../src/consensus/wal.js'
import { sha256 } from '../../../src/crypto/index.js'
import { utf8ToBytes } from '../../../src/primitives/hex.js'
import type { ValidatorKey } from '../../../src/keystore/validator-key.js'
import { now } from '../../../src/utils/time.js'
import { CHAIN_ID, makeGenesis, makeKeys, nodeFolderPerTest, recordingLogger, waitFor, type TestNode } from './helpers.js'

/** A block nobody has: what the lost WAL records proposed. */
const lostBlock: BlockID = { hash: sha256(utf8ToBytes('lost block')), partSetHeader: { total: 1, hash: sha256(utf8ToBytes('lost parts')) } }

/** Byte length of the WAL up to and including its last `#ENDHEIGHT` record, and that marker's height. */
async function lastEndHeight(walPath: string): Promise<{ offset: number; height: number }> {
  const bytes = await readFile(walPath)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let off = 0
  let last = { offset: 0, height: -1 }
  while (off < bytes.length) {
    const end = off + 8 + view.getUint32(off + 4)
    const [m] = decodeWalRecords(bytes.subarray(off, end)).messages
    if (m?.msg.type === 'endHeight') last = { offset: end, height: m.msg.height }
    off = end
  }
  return last
}

/** Replaces the sign state by one that has signed `sign` and nothing later (what the crash leaves). */
async function signStateThatSigned(key: ValidatorKey, statePath: string, sign: (pv: FilePV) => Promise<unknown>): Promise<void> {
  await rm(statePath)
  await sign(await FilePV.fromKey(key, statePath))
}

/** The sign state of a validator that prevoted `lostBlock` at round 0 of `height` (records the WAL no longer holds). */
function signedLostPrevote(key: ValidatorKey, statePath: string, height: number): Promise<void> {
  return signStateThatSigned(key, statePath, (pv) =>
    pv.signVote(CHAIN_ID, {
      type: SignedMsgType.Prevote,
      height,
      round: 0,
      blockId: lostBlock,
      timestamp: now(),
      validatorAddress: key.address,
      validatorIndex: 0,
      signature: new Uint8Array(0),
    }),
  )
}

async function commitRound(node: TestNode, height: number): Promise<number> {
  const commit = (await node.blockStore.loadSeenCommit(height)) ?? (await node.blockStore.loadBlockCommit(height))
  return commit!.round
}

describe('restart after a crash that left the sign state ahead of the WAL', () => {
  const folder = nodeFolderPerTest()
  const statePath = () => join(folder.dir, 'priv_validator_state.json')
  const walPath = () => join(folder.dir, 'cs.wal', 'wal')

  /** Runs a single validator to height 3, stops it, and cuts its WAL back to the last #ENDHEIGHT: the next height to decide. */
  async function runAndCutWal(): Promise<{ keys: ValidatorKey[]; genesis: ReturnType<typeof makeGenesis>; next: number }> {
    const keys = makeKeys(1)
    const genesis = makeGenesis(keys)
    const node = await folder.start({ genesis, key: keys[0]! })
    await waitFor(() => node.engine.height >= 3, 'height 3')
    await node.stop()
    const { offset, height } = await lastEndHeight(walPath())
    expect(height).toBe(node.blockStore.height())
    await truncate(walPath(), offset)
    return { keys, genesis, next: height + 1 }
  }

  it('a prevote signed for a block the WAL lost: the conflict is logged and the height is decided in a later round', async () => {
    const { keys, genesis, next } = await runAndCutWal()
    const key = keys[0]!
    await signedLostPrevote(key, statePath(), next)

    const { logger, lines } = recordingLogger()
    const node = await folder.start({ genesis, key, logger })
    await waitFor(() => node.engine.height >= next + 1, `height ${next + 1} after the restart`)
    expect(node.engine.fatalError).toBeUndefined()
    // Round 0 could not be voted in (the signer refused a prevote other than the one it signed).
    expect(await commitRound(node, next)).toBeGreaterThanOrEqual(1)
    const refused = lines.find((l) => l.level === 'error' && l.msg === 'failed signing vote')
    expect(String(refused?.ctx.err)).toMatch(
      new RegExp(`conflicting data: already signed a different message at height ${next} round 0 step 2`),
    )
  })

  it('a proposal signed for a block the WAL lost: the restarted proposer skips that round and the height is decided later', async () => {
    const { keys, genesis, next } = await runAndCutWal()
    const key = keys[0]!
    await signStateThatSigned(key, statePath(), (pv) =>
      pv.signProposal(CHAIN_ID, {
        height: next,
        round: 0,
        polRound: -1,
        blockId: lostBlock,
        timestamp: now(),
        signature: new Uint8Array(0),
      }),
    )

    const { logger, lines } = recordingLogger()
    const node = await folder.start({ genesis, key, logger })
    await waitFor(() => node.engine.height >= next + 1, `height ${next + 1} after the restart`)
    expect(await commitRound(node, next)).toBeGreaterThanOrEqual(1)
    expect(lines.some((l) => l.level === 'error' && l.msg === 'propose step; failed signing proposal')).toBe(true)
  })

  it('a byte flipped in the middle of the WAL: the file is saved and repaired, and the validator commits again', async () => {
    const keys = makeKeys(1)
    const key = keys[0]!
    const genesis = makeGenesis(keys)
    const first = await folder.start({ genesis, key })
    await waitFor(() => first.engine.height >= 6, 'height 6')
    await first.stop()
    const next = first.blockStore.height() + 1
    const wal = await readFile(walPath())
    wal[Math.floor(wal.length / 2)]! ^= 0x40
    await writeFile(walPath(), wal)
    // As in the probe, the validator had signed at the height the lost records were deciding.
    await signedLostPrevote(key, statePath(), next)

    const { logger, lines } = recordingLogger()
    const node = await folder.start({ genesis, key, logger })
    const corrupted = lines.find((l) => l.level === 'error' && /WAL is corrupted/.test(l.msg))
    expect(corrupted?.ctx).toMatchObject({ path: walPath(), backup: walPath() + '.CORRUPTED' })
    expect(await readFile(walPath() + '.CORRUPTED')).toEqual(wal)
    await waitFor(() => node.engine.height >= next + 1, `height ${next + 1} after the repair`)
    expect(node.engine.fatalError).toBeUndefined()
  })

  it('a validator stopped right after signing its proposal replays it after the restart: no round is lost', async () => {
    const keys = makeKeys(1)
    const key = keys[0]!
    const genesis = makeGenesis(keys)
    const first = await folder.start({ genesis, key })
    await waitFor(() => first.engine.height >= 3, 'height 3')
    // Stop in the very handler that signed the proposal: its proposal and parts are still queued.
    const stoppedAt = await new Promise<number>((resolve) => {
      let txAdded = false
      const off = first.engine.events.on('NewRoundStep', (e) => {
        if (!txAdded) {
          // The next proposal carries a tx that the mempool of the restarted node will not have: the block
          // cannot be made again, so only the WAL can give it back.
          if (e.step === 'RoundStepNewHeight') {
            first.mempool.add('lost=1')
            txAdded = true
          }
          return
        }
        if (e.step !== 'RoundStepPropose') return
        off()
        // The state machine stops taking items at once (as on SIGTERM during this handler); then the node.
        const cs = (first.engine as unknown as { cs: { stop(): Promise<void> } }).cs
        void cs
          .stop()
          .then(() => first.stop())
          .then(() => resolve(e.height))
      })
    })
    const signed = JSON.parse(await readFile(statePath(), 'utf8')) as { height: string; round: number; step: number }
    expect({ height: Number(signed.height), round: signed.round, step: signed.step }).toEqual({ height: stoppedAt, round: 0, step: 1 })

    const { logger, lines } = recordingLogger()
    const node = await folder.start({ genesis, key, logger })
    await waitFor(() => node.engine.height >= stoppedAt, `height ${stoppedAt} after the restart`)
    expect(await commitRound(node, stoppedAt)).toBe(0)
    expect((await node.blockStore.loadBlock(stoppedAt))!.txs.map((t) => new TextDecoder().decode(t))).toEqual(['lost=1'])
    expect(lines.filter((l) => l.level === 'error')).toEqual([])
  })
})
