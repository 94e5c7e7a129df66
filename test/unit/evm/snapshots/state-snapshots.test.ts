import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApplySnapshotChunkResult, OfferSnapshotResult, type Snapshot } from '../../../../src/abci/wire/messages.js'
import { Database } from '../../../../src/db/database.js'
import { EvmApplication } from '../../../../src/evm/app.js'
import { parseAppState } from '../../../../src/evm/genesis.js'
import { StateSnapshots } from '../../../../src/evm/snapshots/state-snapshots.js'
import { EntryKind, StateChunkBuilder, encodeMetadata, hashChunk, hashSnapshot } from '../../../../src/evm/snapshots/snapshot-format.js'
import { RLP } from '@ethereumjs/rlp'
import { createAddress } from '../../../../src/evm/store/evm-records.js'
import { EvmStore } from '../../../../src/evm/store/evm-store.js'
import { HistoryPruner } from '../../../../src/evm/store/history-pruner.js'
import { PrunedHistoryError } from '../../../../src/evm/errors.js'
import { silentLogger } from '../../../../src/utils/logger.js'
import type { FinalizeBlockRequest } from '../../../../src/abci/application.js'
import { bytesToHex, hexToBytes } from '../../../../src/primitives/hex.js'
import {
  ADDRESS2,
  CHAIN_ID,
  DEV_ADDRESS,
  DEV_KEY,
  PROPOSER,
  STORE_RUNTIME,
  blockHash,
  createHarness,
  defaultAppState,
  deployCode,
  sign1559,
  word,
  type Harness,
} from '../helpers.js'

const hex = bytesToHex
/** Small chunks, so the test state spans several. */
const CHUNK_BYTES = 512
const INTERVAL = 4
const CONTRACTS = 3

/** An application over a fresh database, never initialised: what a node joining by state sync starts with. */
async function createEmptyApp(): Promise<{ dir: string; db: Database; app: EvmApplication; snapshots: StateSnapshots }> {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-restore-'))
  const db = new Database({ path: join(dir, 'db') })
  await db.open()
  const app = await EvmApplication.create({ db, chainId: CHAIN_ID, genesis: parseAppState(defaultAppState()) })
  const snapshots = new StateSnapshots({ db, app, dir: join(dir, 'snapshots'), interval: 0, keepRecent: 2 })
  return { dir, db, app, snapshots }
}

async function allKeys(db: Database): Promise<Uint8Array[]> {
  return db.keys({ gte: new Uint8Array([0]), lt: new Uint8Array([0xff, 0xff]) })
}

describe('state-sync snapshots', () => {
  let h: Harness
  let source: StateSnapshots
  let snapshotsDir: string
  let snapshot: Snapshot
  let chunks: Uint8Array[]
  const contracts = Array.from({ length: CONTRACTS }, (_, i) => createAddress(hexToBytes(DEV_ADDRESS), BigInt(i)))

  beforeAll(async () => {
    snapshotsDir = mkdtempSync(join(tmpdir(), 'nodectl-snapshots-'))
    h = await createHarness({ app: { committed: (head) => source.committed(head) } })
    source = new StateSnapshots({
      db: h.db,
      app: h.app,
      dir: snapshotsDir,
      interval: INTERVAL,
      keepRecent: 1,
      chunkBytes: CHUNK_BYTES,
    })
    const c = h.app.common
    // Heights 1..8: contracts deployed, their slots set, transfers; a snapshot at 4 and 8, the one of 8 kept.
    let nonce = 0n
    await h.finalize(contracts.map(() => sign1559(c, DEV_KEY, { nonce: nonce++, data: deployCode(STORE_RUNTIME), gasLimit: 200_000n })))
    for (let height = 2; height <= 2 * INTERVAL; height++) {
      const txs = contracts.map((to, i) =>
        sign1559(c, DEV_KEY, { nonce: nonce++, to: hex(to) as `0x${string}`, data: word(BigInt(height * 10 + i)), gasLimit: 100_000n }),
      )
      txs.push(sign1559(c, DEV_KEY, { nonce: nonce++, to: ADDRESS2, value: BigInt(height) }))
      await h.finalize(txs)
      await source.idle()
    }
    const list = await source.listSnapshots()
    expect(list.map((s) => s.height)).toEqual([BigInt(2 * INTERVAL)])
    snapshot = list[0]!
    chunks = []
    for (let i = 0; i < snapshot.chunks; i++)
      chunks.push(await source.loadSnapshotChunk({ height: snapshot.height, format: snapshot.format, chunk: i }))
  })
  afterAll(async () => {
    await source.close()
    await h.close()
    rmSync(snapshotsDir, { recursive: true, force: true })
  })

  /** Offers the snapshot to `snapshots` with the app hash `at` and applies every chunk. */
  async function restore(snapshots: StateSnapshots, at: Uint8Array): Promise<void> {
    expect(await snapshots.offerSnapshot({ snapshot, appHash: at })).toBe(OfferSnapshotResult.Accept)
    for (let i = 0; i < chunks.length; i++) await snapshots.applySnapshotChunk({ index: i, chunk: chunks[i]!, sender: 'peer-a' })
  }

  it('lists a snapshot of several chunks, each named in the metadata', async () => {
    expect(snapshot.chunks).toBeGreaterThan(2)
    expect(snapshot.format).toBe(1)
    expect(chunks.every((c) => c.length > 0)).toBe(true)
    expect(await source.loadSnapshotChunk({ height: snapshot.height, format: snapshot.format, chunk: snapshot.chunks })).toHaveLength(0)
  })

  it('restores into an empty application that then answers and executes as the original', async () => {
    const b = await createEmptyApp()
    try {
      const info = await h.app.info()
      expect(await b.snapshots.offerSnapshot({ snapshot, appHash: info.lastBlockAppHash })).toBe(OfferSnapshotResult.Accept)
      for (let i = 0; i < chunks.length; i++) {
        const res = await b.snapshots.applySnapshotChunk({ index: i, chunk: chunks[i]!, sender: 'peer-a' })
        expect(res.result).toBe(ApplySnapshotChunkResult.Accept)
      }
      const restored = await b.app.info()
      expect(restored.lastBlockHeight).toBe(info.lastBlockHeight)
      expect(hex(restored.lastBlockAppHash)).toBe(hex(info.lastBlockAppHash))
      expect(hex(b.app.latestBlock()!.hash)).toBe(hex(h.app.latestBlock()!.hash))
      for (const address of [hexToBytes(DEV_ADDRESS), hexToBytes(ADDRESS2), ...contracts]) {
        const [ours, theirs] = [await b.app.getAccount(address), await h.app.getAccount(address)]
        expect([ours.nonce, ours.balance, hex(ours.codeHash), hex(ours.storageRoot)]).toEqual([
          theirs.nonce,
          theirs.balance,
          hex(theirs.codeHash),
          hex(theirs.storageRoot),
        ])
        expect(hex(await b.app.getCode(address))).toBe(hex(await h.app.getCode(address)))
        expect(hex(await b.app.getStorageAt(address, word(0n)))).toBe(hex(await h.app.getStorageAt(address, word(0n))))
      }
      // BLOCKHASH of the head, through eth_call (calldata of 3 bytes).
      const blockhashCall = { to: contracts[0]!, data: new Uint8Array(3) }
      expect(hex((await b.app.call(blockhashCall)).returnValue)).toBe(hex((await h.app.call(blockhashCall)).returnValue))

      // The next height executes to the same app hash on both.
      const c = h.app.common
      const nonce = (await h.app.getAccount(hexToBytes(DEV_ADDRESS))).nonce
      const req: FinalizeBlockRequest = {
        txs: [sign1559(c, DEV_KEY, { nonce, to: hex(contracts[1]!) as `0x${string}`, data: word(999n), gasLimit: 100_000n })],
        decidedLastCommit: { round: 0, votes: [] },
        hash: blockHash(h.height),
        height: h.height,
        time: { seconds: h.time + 2, nanos: 0 },
        nextValidatorsHash: new Uint8Array(32),
        proposerAddress: PROPOSER,
      }
      const onB = await b.app.finalizeBlock(req)
      await b.app.commit()
      const onA = await h.app.finalizeBlock(req)
      await h.app.commit()
      h.height++
      h.time += 2
      expect(onB.txResults[0]!.code).toBe(0)
      expect(hex(onB.appHash)).toBe(hex(onA.appHash))
      expect(hex(b.app.latestBlock()!.hash)).toBe(hex(h.app.latestBlock()!.hash))
    } finally {
      await b.db.close()
      rmSync(b.dir, { recursive: true, force: true })
    }
  })

  it('restores into an application whose InitChain was never committed', async () => {
    const b = await createHarness()
    try {
      const at = (await h.app.getBlock(Number(snapshot.height)))!.stateRoot
      await restore(new StateSnapshots({ db: b.db, app: b.app, dir: join(b.dir, 'snapshots'), interval: 0, keepRecent: 2 }), at)
      const info = await b.app.info()
      expect([info.lastBlockHeight, hex(info.lastBlockAppHash)]).toEqual([Number(snapshot.height), hex(at)])
      await b.reopen()
      expect((await b.app.info()).lastBlockHeight).toBe(Number(snapshot.height))
    } finally {
      await b.close()
    }
  })

  it('serves history from the height above the snapshot: below it, pruned history (4444), but the genesis block', async () => {
    const b = await createHarness()
    try {
      const height = Number(snapshot.height)
      const at = (await h.app.getBlock(height))!
      await restore(new StateSnapshots({ db: b.db, app: b.app, dir: join(b.dir, 'snapshots'), interval: 0, keepRecent: 2 }), at.stateRoot)
      const preSnapshotTx = (await h.app.getBlock(2))!.transactions[0]!
      const expectHistoryFrom = async (base: number) => {
        expect(b.app.historyBase()).toBe(base)
        for (const below of [1, height - 1, base - 1]) {
          await expect(b.app.getBlock(below), `block ${below}`).rejects.toBeInstanceOf(PrunedHistoryError)
          await expect(b.app.getBlockReceipts(below)).rejects.toBeInstanceOf(PrunedHistoryError)
        }
        await expect(b.app.getBlock(at.hash)).rejects.toBeInstanceOf(PrunedHistoryError)
        expect(await b.app.getReceipt(preSnapshotTx)).toBeUndefined()
        const logs = { fromBlock: 0, toBlock: base, addresses: [], topics: [] }
        await expect(b.app.getLogs(logs, 100)).rejects.toBeInstanceOf(PrunedHistoryError)
        await expect(b.app.getLogs({ ...logs, fromBlock: base - 1 }, 100)).rejects.toBeInstanceOf(PrunedHistoryError)
        await expect(b.app.stateAt(height - 1)).rejects.toBeInstanceOf(PrunedHistoryError)
        // The snapshot carried the genesis block (it is fewer than 256 heights in).
        expect(hex((await b.app.getBlock(0))!.hash)).toBe(hex((await h.app.getBlock(0))!.hash))
      }
      await expectHistoryFrom(height + 1)
      // The head's state is read all the same (CheckTx, eth_call at latest), its block is not served.
      expect((await b.app.stateAt()).height).toBe(height)
      expect((await b.app.getAccount(hexToBytes(ADDRESS2))).balance).toBe((await h.app.getAccount(hexToBytes(ADDRESS2), height)).balance)

      // The next block is history this node has; the snapshot's height is not, after a restart too.
      b.height = height + 1
      b.time = Number(at.timestamp)
      await b.finalize([])
      await b.reopen()
      await expectHistoryFrom(height + 1)
      await expect(b.app.stateAt(height)).rejects.toBeInstanceOf(PrunedHistoryError)
      expect((await b.app.getBlock(height + 1))!.number).toBe(height + 1)
      expect((await b.app.getLogs({ fromBlock: height + 1, toBlock: height + 1, addresses: [], topics: [] }, 100)).toArray()).toEqual([])
      expect((await b.app.stateAt(height + 1)).height).toBe(height + 1)
    } finally {
      await b.close()
    }
  })

  it('deletes the blocks a snapshot carried once a base above them is asked for, never before, the genesis block never', async () => {
    const b = await createEmptyApp()
    try {
      const height = Number(snapshot.height)
      await restore(b.snapshots, (await h.app.getBlock(height))!.stateRoot)
      // Not the genesis state: this application never ran InitChain.
      await expect(b.app.stateAt(0)).rejects.toBeInstanceOf(PrunedHistoryError)
      const store = new EvmStore(b.db)
      const history = new HistoryPruner(b.db, store, silentLogger)
      await history.open()
      await history.drained()
      const stored = async () => {
        const heights: number[] = []
        for (let n = 0; n <= height; n++) if (await store.getBlock(n)) heights.push(n)
        return heights
      }
      // Carried: the genesis block and every block up to the snapshot (fewer than 256 heights in).
      expect(await stored()).toEqual(Array.from({ length: height + 1 }, (_, n) => n))
      expect(history.base()).toBe(height + 1)
      history.pruneBelow(5, 0)
      await history.drained()
      expect(await stored()).toEqual([0, 5, 6, 7, 8])
      expect(history.base()).toBe(height + 1)
      // A restart resumes from the record.
      const again = new HistoryPruner(b.db, new EvmStore(b.db), silentLogger)
      await again.open()
      again.pruneBelow(5, 0)
      await again.drained()
      expect([await stored(), again.base()]).toEqual([[0, 5, 6, 7, 8], height + 1])
    } finally {
      await b.db.close()
      rmSync(b.dir, { recursive: true, force: true })
    }
  })

  it('asks again for a corrupted chunk, from another peer', async () => {
    const b = await createEmptyApp()
    try {
      const at = (await h.app.getBlock(Number(snapshot.height)))!.stateRoot
      expect(await b.snapshots.offerSnapshot({ snapshot, appHash: at })).toBe(OfferSnapshotResult.Accept)
      expect((await b.snapshots.applySnapshotChunk({ index: 0, chunk: chunks[0]!, sender: 'peer-a' })).result).toBe(
        ApplySnapshotChunkResult.Accept,
      )
      const corrupted = chunks[1]!.slice()
      corrupted[corrupted.length >> 1]! ^= 0xff
      expect(await b.snapshots.applySnapshotChunk({ index: 1, chunk: corrupted, sender: 'peer-bad' })).toEqual({
        result: ApplySnapshotChunkResult.Retry,
        refetchChunks: [1],
        rejectSenders: ['peer-bad'],
      })
      for (let i = 1; i < chunks.length; i++) {
        expect((await b.snapshots.applySnapshotChunk({ index: i, chunk: chunks[i]!, sender: 'peer-a' })).result).toBe(
          ApplySnapshotChunkResult.Accept,
        )
      }
      expect((await b.app.info()).lastBlockHeight).toBe(Number(snapshot.height))
    } finally {
      await b.db.close()
      rmSync(b.dir, { recursive: true, force: true })
    }
  })

  it('refuses a snapshot whose root is not the trusted app hash, leaving the database empty', async () => {
    const b = await createEmptyApp()
    try {
      const wrong = new Uint8Array(32).fill(7)
      expect(await b.snapshots.offerSnapshot({ snapshot, appHash: wrong })).toBe(OfferSnapshotResult.Accept)
      expect((await b.snapshots.applySnapshotChunk({ index: 0, chunk: chunks[0]!, sender: 'peer-a' })).result).toBe(
        ApplySnapshotChunkResult.RejectSnapshot,
      )
      expect(await allKeys(b.db)).toEqual([])
      expect((await b.snapshots.applySnapshotChunk({ index: 1, chunk: chunks[1]!, sender: 'peer-a' })).result).toBe(
        ApplySnapshotChunkResult.Abort,
      )
      expect((await b.app.info()).lastBlockHeight).toBe(0)
    } finally {
      await b.db.close()
      rmSync(b.dir, { recursive: true, force: true })
    }
  })

  it('drops a restore left unfinished with what it wrote', async () => {
    const b = await createEmptyApp()
    try {
      const at = (await h.app.getBlock(Number(snapshot.height)))!.stateRoot
      expect(await b.snapshots.offerSnapshot({ snapshot, appHash: at })).toBe(OfferSnapshotResult.Accept)
      for (let i = 0; i < chunks.length - 1; i++) await b.snapshots.applySnapshotChunk({ index: i, chunk: chunks[i]!, sender: 'peer-a' })
      expect((await allKeys(b.db)).length).toBeGreaterThan(0)
      // Offered again: the restore in progress is dropped with what it wrote.
      expect(await b.snapshots.offerSnapshot({ snapshot, appHash: at })).toBe(OfferSnapshotResult.Accept)
      expect(await allKeys(b.db)).toEqual([])
    } finally {
      await b.db.close()
      rmSync(b.dir, { recursive: true, force: true })
    }
  })

  /** A snapshot of `chunks`, its metadata and hash made to match them (what a dishonest peer can serve). */
  function forge(forged: Uint8Array[]): Snapshot {
    const hashes = forged.map(hashChunk)
    return { ...snapshot, chunks: forged.length, hash: hashSnapshot(hashes), metadata: encodeMetadata(hashes) }
  }

  it('refuses a consistent snapshot holding a node the trusted state does not refer to, and cleans up', async () => {
    const b = await createEmptyApp()
    try {
      const at = (await h.app.getBlock(Number(snapshot.height)))!.stateRoot
      const chunk = new StateChunkBuilder()
      chunk.add({ kind: EntryKind.AccountNode, bytes: RLP.encode([new Uint8Array([0x20]), new Uint8Array(40).fill(1)]) })
      const forged = [chunks[0]!, chunks[1]!, chunk.finish(), ...chunks.slice(2)]
      expect(await b.snapshots.offerSnapshot({ snapshot: forge(forged), appHash: at })).toBe(OfferSnapshotResult.Accept)
      expect((await b.snapshots.applySnapshotChunk({ index: 0, chunk: forged[0]!, sender: 'peer-a' })).result).toBe(
        ApplySnapshotChunkResult.Accept,
      )
      expect((await b.snapshots.applySnapshotChunk({ index: 1, chunk: forged[1]!, sender: 'peer-a' })).result).toBe(
        ApplySnapshotChunkResult.Accept,
      )
      expect(await allKeys(b.db)).not.toEqual([])
      expect((await b.snapshots.applySnapshotChunk({ index: 2, chunk: forged[2]!, sender: 'peer-a' })).result).toBe(
        ApplySnapshotChunkResult.RejectSnapshot,
      )
      expect(await allKeys(b.db)).toEqual([])
    } finally {
      await b.db.close()
      rmSync(b.dir, { recursive: true, force: true })
    }
  })

  it('refuses a snapshot missing part of the state after its last chunk, and cleans up', async () => {
    const b = await createEmptyApp()
    try {
      const at = (await h.app.getBlock(Number(snapshot.height)))!.stateRoot
      const forged = chunks.slice(0, -1)
      expect(await b.snapshots.offerSnapshot({ snapshot: forge(forged), appHash: at })).toBe(OfferSnapshotResult.Accept)
      const results = []
      for (let i = 0; i < forged.length; i++)
        results.push((await b.snapshots.applySnapshotChunk({ index: i, chunk: forged[i]!, sender: 'peer-a' })).result)
      expect(results.at(-1)).toBe(ApplySnapshotChunkResult.RejectSnapshot)
      expect(results.slice(0, -1).every((r) => r === ApplySnapshotChunkResult.Accept)).toBe(true)
      expect(await allKeys(b.db)).toEqual([])
      expect((await b.app.info()).lastBlockHeight).toBe(0)
    } finally {
      await b.db.close()
      rmSync(b.dir, { recursive: true, force: true })
    }
  })

  it('refuses unknown formats and metadata that does not match the hash', async () => {
    const b = await createEmptyApp()
    try {
      const appHash = new Uint8Array(32)
      expect(await b.snapshots.offerSnapshot({ snapshot: { ...snapshot, format: 2 }, appHash })).toBe(OfferSnapshotResult.RejectFormat)
      expect(await b.snapshots.offerSnapshot({ snapshot: { ...snapshot, chunks: snapshot.chunks + 1 }, appHash })).toBe(
        OfferSnapshotResult.Reject,
      )
      expect(await b.snapshots.offerSnapshot({ snapshot: { ...snapshot, hash: new Uint8Array(32) }, appHash })).toBe(
        OfferSnapshotResult.Reject,
      )
      expect(await h.app.info().then((i) => i.lastBlockHeight)).toBeGreaterThan(0)
      expect(await source.offerSnapshot({ snapshot, appHash: snapshot.hash })).toBe(OfferSnapshotResult.Abort)
    } finally {
      await b.db.close()
      rmSync(b.dir, { recursive: true, force: true })
    }
  })
})

describe('a snapshot taken while blocks go on', () => {
  it('holds the state of its own height, whatever later blocks change', async () => {
    let snapshots!: StateSnapshots
    const h = await createHarness({ app: { committed: (head) => snapshots.committed(head) } })
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-snapshots-'))
    snapshots = new StateSnapshots({ db: h.db, app: h.app, dir, interval: 2, keepRecent: 0, chunkBytes: CHUNK_BYTES })
    const b = await createEmptyApp()
    try {
      const c = h.app.common
      await h.finalize([sign1559(c, DEV_KEY, { nonce: 0n, data: deployCode(STORE_RUNTIME), gasLimit: 200_000n })])
      const contract = hex(createAddress(hexToBytes(DEV_ADDRESS), 0n)) as `0x${string}`
      // Height 2 starts a snapshot; heights 3 and 4 commit before it ends, rewriting the slot it holds.
      for (let nonce = 1n; nonce <= 3n; nonce++)
        await h.finalize([sign1559(c, DEV_KEY, { nonce, to: contract, data: word(nonce), gasLimit: 100_000n })])
      await snapshots.idle()
      const taken = (await snapshots.listSnapshots()).find((s) => s.height === 2n)!
      expect(taken).toBeDefined()
      const appHash = (await h.app.getBlock(2))!.stateRoot
      expect(await b.snapshots.offerSnapshot({ snapshot: taken, appHash })).toBe(OfferSnapshotResult.Accept)
      for (let i = 0; i < taken.chunks; i++) {
        const chunk = await snapshots.loadSnapshotChunk({ height: 2n, format: 1, chunk: i })
        expect((await b.snapshots.applySnapshotChunk({ index: i, chunk, sender: 'peer-a' })).result).toBe(ApplySnapshotChunkResult.Accept)
      }
      expect((await b.app.info()).lastBlockHeight).toBe(2)
      expect(hex(await b.app.getStorageAt(hexToBytes(contract), word(0n)))).toBe(hex(word(1n)))
    } finally {
      await snapshots.close()
      await b.db.close()
      await h.close()
      rmSync(b.dir, { recursive: true, force: true })
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
