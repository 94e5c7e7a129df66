import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashTxResults } from '../../../src/comet/hash.js'
import { zeroBlockId } from '../../../src/comet/part-set.js'
import type { Header } from '../../../src/comet/types.js'
import { BlockIDFlag } from '../../../src/abci/types.js'
import { ValidatorSet } from '../../../src/comet/validator-set.js'
import type { FinalizeBlockResponse } from '../../../src/abci/application.js'
import { makeGenesisState, updateState } from '../../../src/consensus/chain-state.js'
import { StateStore } from '../../../src/consensus/state-store.js'
import { encodeTaggedJson } from '../../../src/consensus/tagged-json.js'
import { Prefix, prefixedKey } from '../../../src/db/prefixes.js'
import { sha256 } from '../../../src/crypto/index.js'
import { Database } from '../../../src/db/database.js'
import { bytesToUpperHex, utf8ToBytes } from '../../../src/primitives/hex.js'
import { now } from '../../../src/utils/time.js'
import { makeGenesis, makeKeys, makeTempDir, nodeFolderPerTest, removeDir, waitFor, type TestNode } from './helpers.js'

function response(over: Partial<FinalizeBlockResponse> = {}): FinalizeBlockResponse {
  return { events: [], txResults: [], validatorUpdates: [], appHash: sha256(utf8ToBytes('app')), ...over }
}

function header(height: number): Header {
  return { height, time: now() } as Header
}

describe('chain state', () => {
  const keys = makeKeys(3)

  it('genesis: validators incremented once, next validators twice, last validators empty', () => {
    const genesis = makeGenesis(keys.slice(0, 2))
    const s = makeGenesisState(genesis)
    expect(s.lastBlockHeight).toBe(0)
    expect(s.lastBlockTime).toEqual(genesis.genesisTime)
    expect(s.validators.size).toBe(2)
    expect(s.lastValidators.size).toBe(0)
    const expectedNext = ValidatorSet.fromUpdates(genesis.validators).copyIncrementProposerPriority(1)
    expect(s.nextValidators.validators.map((v) => v.proposerPriority)).toEqual(expectedNext.validators.map((v) => v.proposerPriority))
  })

  it('updateState: validator updates returned at H apply at H+2, priorities increment every height', () => {
    const s0 = makeGenesisState(makeGenesis(keys.slice(0, 2)))
    const id = { hash: sha256(utf8ToBytes('b1')), partSetHeader: { total: 1, hash: sha256(utf8ToBytes('p1')) } }
    const s1 = updateState(s0, id, header(1), response({ validatorUpdates: [{ pubKey: keys[2]!.publicKey, power: 5n }] }))
    expect(s1.lastBlockHeight).toBe(1)
    expect(s1.lastBlockId).toEqual(id)
    expect(s1.validators.size).toBe(2) // height 2
    expect(s1.nextValidators.size).toBe(3) // height 3
    expect(s1.lastHeightValidatorsChanged).toBe(3)
    expect(bytesToUpperHex(s1.validators.hash())).toBe(bytesToUpperHex(s0.nextValidators.hash()))
    expect(s1.lastValidators.validators.map((v) => v.proposerPriority)).toEqual(s0.validators.validators.map((v) => v.proposerPriority))
    expect(s1.lastResultsHash).toEqual(hashTxResults([]))
    expect(s1.appHash).toEqual(sha256(utf8ToBytes('app')))
    const s2 = updateState(s1, zeroBlockId(), header(2), response())
    expect(s2.validators.size).toBe(3)
    // Removing (power 0) works the same way.
    const s3 = updateState(s2, zeroBlockId(), header(3), response({ validatorUpdates: [{ pubKey: keys[2]!.publicKey, power: 0n }] }))
    expect(s3.nextValidators.size).toBe(2)
    expect(() =>
      updateState(s3, zeroBlockId(), header(4), response({ validatorUpdates: [{ pubKey: keys[2]!.publicKey, power: -1n }] })),
    ).toThrow()
    expect(() =>
      updateState(s3, zeroBlockId(), header(4), response({ consensusParamUpdates: { block: { maxBytes: 0n, maxGas: -1n } } })),
    ).toThrow(/MaxBytes/)
    const s4 = updateState(
      s3,
      zeroBlockId(),
      header(4),
      response({ consensusParamUpdates: { block: { maxBytes: 1_000_000n, maxGas: 5_000_000n }, version: { app: 7n } } }),
    )
    expect(s4.consensusParams.block.maxGas).toBe(5_000_000n)
    expect(s4.appVersion).toBe(7n)
    expect(s4.lastHeightConsensusParamsChanged).toBe(5)
  })

  describe('StateStore', () => {
    let dir: string
    let db: Database
    beforeEach(async () => {
      dir = await makeTempDir()
      db = new Database({ path: join(dir, 'db') })
      await db.open()
    })
    afterEach(async () => {
      await db.close()
      await removeDir(dir)
    })

    it('saves and loads the state, the validators of each height and the FinalizeBlock responses', async () => {
      const store = new StateStore(db)
      const stage = db.createStage()
      expect(await store.load()).toBeUndefined()
      const s0 = makeGenesisState(makeGenesis(keys.slice(0, 2)))
      store.save(stage, s0)
      const res = response({
        txResults: [
          { code: 0, data: utf8ToBytes('d'), log: 'ok', info: '', gasWanted: 21000n, gasUsed: 21000n, events: [], codespace: '' },
        ],
      })
      const s1 = updateState(s0, zeroBlockId(), header(1), res)
      store.save(stage, s1)
      await store.saveFinalizeBlockResponse(stage, 1, res)
      await stage.write()

      const loaded = (await store.load())!
      expect(loaded.lastBlockHeight).toBe(1)
      expect(loaded.appHash).toEqual(s1.appHash)
      expect(loaded.validators.validators).toEqual(s1.validators.validators)
      expect(loaded.validators.getProposer().address).toEqual(s1.validators.getProposer().address)
      expect(loaded.consensusParams).toEqual(s1.consensusParams)
      expect((await store.loadValidators(1))!.validators).toEqual(s0.validators.validators)
      expect((await store.loadValidators(2))!.validators).toEqual(s1.validators.validators)
      expect((await store.loadValidators(3))!.validators).toEqual(s1.nextValidators.validators)
      expect(await store.loadValidators(4)).toBeUndefined()
      expect(await store.loadFinalizeBlockResponse(1)).toEqual(res)
      expect(await store.loadConsensusParams(2)).toEqual(s1.consensusParams)
    })

    it('stores tx results one key each: one result or the events read alone; older whole responses still read', async () => {
      const store = new StateStore(db)
      const stage = db.createStage()
      const result = (log: string) => ({
        code: 0,
        data: utf8ToBytes(log),
        log,
        info: '',
        gasWanted: 1n,
        gasUsed: 1n,
        events: [{ type: 't', attributes: [{ key: 'k', value: log, index: true }] }],
        codespace: '',
      })
      const res = response({ txResults: [result('a'), result('b'), result('c')], events: [{ type: 'block', attributes: [] }] })
      await store.saveFinalizeBlockResponse(stage, 7, res)
      await stage.write()
      expect(await store.loadFinalizeBlockResponse(7)).toEqual(res)
      expect(await store.loadTxResult(7, 1)).toEqual(result('b'))
      expect(await store.loadTxResult(7, 3)).toBeUndefined()
      expect(await store.loadFinalizeBlockEvents(7)).toEqual(res.events)
      // A home written before per-tx results keeps the whole response under the height's key.
      const oldKey = prefixedKey(Prefix.consensusState, new Uint8Array([0x72, 0, 0, 0, 0, 0, 0, 0, 8]))
      await db.put(oldKey, encodeTaggedJson(res))
      expect(await store.loadFinalizeBlockResponse(8)).toEqual(res)
      expect(await store.loadTxResult(8, 2)).toEqual(result('c'))
    })
  })
})

describe('validator set changes through the engine', () => {
  const folder = nodeFolderPerTest()
  let node: TestNode

  it('an update returned at height 2 shows in header 3 next_validators_hash and signs from height 4', async () => {
    const keys = makeKeys(2)
    const updates = new Map([[2, [{ pubKey: keys[1]!.publicKey, power: 1n }]]])
    node = await folder.start({ genesis: makeGenesis(keys.slice(0, 1)), key: keys[0]!, app: { validatorUpdates: updates } })
    const events: number[] = []
    node.engine.events.on('ValidatorSetUpdates', (e) => events.push(e.validatorUpdates.length))
    await waitFor(() => node!.engine.height >= 5, 'height 5')
    const v3 = (await node.engine.getValidators(3))!
    const v4 = (await node.engine.getValidators(4))!
    expect(v3.size).toBe(1)
    expect(v4.size).toBe(2)
    const h3 = (await node.blockStore.loadBlock(3))!.header
    const h4 = (await node.blockStore.loadBlock(4))!.header
    expect(h3.nextValidatorsHash).toEqual(v4.hash())
    expect(h4.validatorsHash).toEqual(v4.hash())
    // The new validator (power 1 of 11) is offline: its commit signature is ABSENT, the chain goes on.
    const b5 = (await node.blockStore.loadBlock(5))!
    expect(b5.lastCommit.signatures.map((s) => s.blockIdFlag).sort()).toEqual([BlockIDFlag.Absent, BlockIDFlag.Commit])
    expect(events).toEqual([1])
  })
})
