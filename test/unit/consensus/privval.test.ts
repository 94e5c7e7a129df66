import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { proposalSignBytes, voteSignBytes } from '../../../src/comet/sign-bytes.js'
import type { BlockID, Proposal, Vote } from '../../../src/comet/types.js'
import { DoubleSignError, FilePV } from '../../../src/consensus/privval.js'
import { ed25519Verify, sha256 } from '../../../src/crypto/index.js'
import { bytesToUpperHex, utf8ToBytes } from '../../../src/primitives/hex.js'
import { addMillis, now } from '../../../src/utils/time.js'
import { CHAIN_ID, makeKeys, makeTempDir, removeDir } from './helpers.js'

const [key] = makeKeys(1)
const id = (tag: string): BlockID => ({ hash: sha256(utf8ToBytes(tag)), partSetHeader: { total: 1, hash: sha256(utf8ToBytes(tag + 'p')) } })

function unsignedVote(over: Partial<Vote> = {}): Vote {
  return {
    type: 1,
    height: 3,
    round: 0,
    blockId: id('a'),
    timestamp: now(),
    validatorAddress: key!.address,
    validatorIndex: 0,
    signature: new Uint8Array(0),
    ...over,
  }
}

describe('FilePV', () => {
  let dir: string
  let statePath: string
  beforeEach(async () => {
    dir = await makeTempDir()
    statePath = join(dir, 'data', 'priv_validator_state.json')
  })
  afterEach(() => removeDir(dir))

  it('creates the CometBFT state file and records each signature before returning it', async () => {
    const pv = await FilePV.fromKey(key!, statePath)
    expect(await readFile(statePath, 'utf8')).toBe('{\n  "height": "0",\n  "round": 0,\n  "step": 0\n}\n')
    const v = await pv.signVote(CHAIN_ID, unsignedVote())
    expect(ed25519Verify(key!.publicKey, voteSignBytes(CHAIN_ID, v), v.signature)).toBe(true)
    const json = JSON.parse(await readFile(statePath, 'utf8')) as Record<string, unknown>
    expect(json).toEqual({
      height: '3',
      round: 0,
      step: 2,
      signature: Buffer.from(v.signature).toString('base64'),
      signbytes: bytesToUpperHex(voteSignBytes(CHAIN_ID, v)),
    })
  })

  it('re-signing the same step with only another timestamp returns the earlier signature and timestamp', async () => {
    const pv = await FilePV.fromKey(key!, statePath)
    const first = await pv.signVote(CHAIN_ID, unsignedVote())
    const again = await pv.signVote(CHAIN_ID, unsignedVote({ timestamp: addMillis(first.timestamp, 5000) }))
    expect(again.signature).toEqual(first.signature)
    expect(again.timestamp).toEqual(first.timestamp)
    // After a restart too (state read from the file).
    const reloaded = await FilePV.fromKey(key!, statePath)
    const third = await reloaded.signVote(CHAIN_ID, unsignedVote({ timestamp: addMillis(first.timestamp, 9000) }))
    expect(third.signature).toEqual(first.signature)
    expect(third.timestamp).toEqual(first.timestamp)
  })

  it('refuses a conflicting vote for the same step and any regression (double sign)', async () => {
    const pv = await FilePV.fromKey(key!, statePath)
    await pv.signVote(CHAIN_ID, unsignedVote())
    await expect(pv.signVote(CHAIN_ID, unsignedVote({ blockId: id('b') }))).rejects.toThrow(DoubleSignError)
    await pv.signVote(CHAIN_ID, unsignedVote({ type: 2 }))
    await expect(pv.signVote(CHAIN_ID, unsignedVote({ type: 1 }))).rejects.toThrow(/step regression/)
    await pv.signVote(CHAIN_ID, unsignedVote({ type: 1, round: 1 }))
    await expect(pv.signVote(CHAIN_ID, unsignedVote({ type: 2, round: 0 }))).rejects.toThrow(/round regression/)
    await pv.signVote(CHAIN_ID, unsignedVote({ height: 4 }))
    await expect(pv.signVote(CHAIN_ID, unsignedVote({ height: 3, round: 5 }))).rejects.toThrow(/height regression/)
    const reloaded = await FilePV.fromKey(key!, statePath)
    await expect(reloaded.signVote(CHAIN_ID, unsignedVote({ height: 4, blockId: id('c') }))).rejects.toThrow(DoubleSignError)
  })

  it('guards proposals the same way', async () => {
    const pv = await FilePV.fromKey(key!, statePath)
    const p: Proposal = { height: 7, round: 1, polRound: -1, blockId: id('x'), timestamp: now(), signature: new Uint8Array(0) }
    const signed = await pv.signProposal(CHAIN_ID, p)
    expect(ed25519Verify(key!.publicKey, proposalSignBytes(CHAIN_ID, signed), signed.signature)).toBe(true)
    const again = await pv.signProposal(CHAIN_ID, { ...p, timestamp: addMillis(p.timestamp, 10) })
    expect(again.signature).toEqual(signed.signature)
    expect(again.timestamp).toEqual(signed.timestamp)
    await expect(pv.signProposal(CHAIN_ID, { ...p, blockId: id('y') })).rejects.toThrow(DoubleSignError)
    // A prevote after the proposal of the same round is the next step.
    await expect(pv.signVote(CHAIN_ID, unsignedVote({ height: 7, round: 1 }))).resolves.toBeDefined()
  })
})
