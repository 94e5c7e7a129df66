/**
 * The kv event indexer over a real LevelDB: entries are only staged (written with the caller's stage),
 * searches by hash, attribute, range and height, conditions matched within one event, hex case folding.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashTx } from '../../../src/comet/hash.js'
import { parseQuery } from '../../../src/comet/query/index.js'
import type { Block } from '../../../src/comet/types.js'
import type { AbciEvent, ExecTxResult } from '../../../src/abci/types.js'
import { EventIndexer } from '../../../src/indexer/event-indexer.js'
import { Database } from '../../../src/db/database.js'
import { bytesToUpperHex, utf8ToBytes } from '../../../src/primitives/hex.js'

const ev = (type: string, attrs: Record<string, string>, index = true): AbciEvent => ({
  type,
  attributes: Object.entries(attrs).map(([key, value]) => ({ key, value, index })),
})
const result = (events: AbciEvent[]): ExecTxResult => ({
  code: 0,
  data: new Uint8Array(),
  log: '',
  info: '',
  gasWanted: 0n,
  gasUsed: 0n,
  events,
  codespace: '',
})

describe('EventIndexer', () => {
  let dir: string
  let db: Database
  let indexer: EventIndexer
  const heights = new Map<number, { txs: Uint8Array[]; txResults: ExecTxResult[]; events: AbciEvent[] }>()

  async function addHeight(
    height: number,
    txs: { tx: string; events: AbciEvent[]; code?: number }[],
    blockEvents: AbciEvent[] = [],
  ): Promise<void> {
    const data = {
      txs: txs.map((t) => utf8ToBytes(t.tx)),
      txResults: txs.map((t) => ({ ...result(t.events), code: t.code ?? 0 })),
      events: blockEvents,
    }
    heights.set(height, data)
    const stage = db.createStage()
    await indexer.stageBlock(stage, { header: { height }, txs: data.txs } as unknown as Block, data)
    await stage.write()
  }
  const q = (text: string) => parseQuery(text)
  /** The locations of the matches (each also carries its tx bytes and result). */
  const search = async (text: string) => (await indexer.searchTxs(q(text))).map(({ height, index }) => ({ height, index }))

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-indexer-'))
    db = new Database({ path: dir })
    await db.open()
    heights.clear()
    indexer = new EventIndexer({
      db,
      loadTx: async (h, i) => {
        const data = heights.get(h)
        return data?.txs[i] ? { tx: data.txs[i]!, result: data.txResults[i]! } : undefined
      },
      loadBlockEvents: async (h) => heights.get(h)?.events,
    })
    await addHeight(
      1,
      [
        { tx: 'a', events: [ev('transfer', { sender: 'alice', amount: '5' }), ev('transfer', { sender: 'bob', amount: '50' })] },
        { tx: 'b', events: [ev('ethereum_tx', { ethereumTxHash: '0xabcdef0000000000000000000000000000000000000000000000000000000001' })] },
      ],
      [ev('fee_market', { base_fee: '1000' })],
    )
    await addHeight(
      2,
      [{ tx: 'c', events: [ev('transfer', { sender: 'alice', amount: '50' }), ev('secret', { key: 'x' }, false)] }],
      [ev('fee_market', { base_fee: '875' })],
    )
    await addHeight(3, [])
  })

  afterEach(async () => {
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('stages entries without writing them', async () => {
    const block = { header: { height: 9 }, txs: [utf8ToBytes('z')] } as unknown as Block
    const stage = db.createStage()
    await indexer.stageBlock(stage, block, { txResults: [result([])], events: [] })
    expect(stage.size).toBeGreaterThan(0)
    expect(await indexer.searchBlocks(q('block.height = 9'))).toEqual([])
    stage.discard()
  })

  it('keeps a successful tx indexed when the same tx fails later (CometBFT re-indexing rule)', async () => {
    const hash = hashTx(utf8ToBytes('c'))
    await addHeight(4, [{ tx: 'c', code: 5, events: [ev('transfer', { sender: 'mallory' })] }])
    expect(await indexer.getTxLocation(hash)).toEqual({ height: 2, index: 0 })
    expect(await search("transfer.sender = 'mallory'")).toEqual([])
    // Within one block too: the failed repeat after the successful one is not indexed.
    await addHeight(5, [
      { tx: 'n', events: [] },
      { tx: 'n', code: 5, events: [] },
    ])
    expect(await indexer.getTxLocation(hashTx(utf8ToBytes('n')))).toEqual({ height: 5, index: 0 })
  })

  it('indexes a failed tx again when it succeeds later, and a failure over a failure', async () => {
    await addHeight(4, [{ tx: 'f', code: 5, events: [] }])
    await addHeight(5, [{ tx: 'f', code: 7, events: [] }])
    expect(await indexer.getTxLocation(hashTx(utf8ToBytes('f')))).toEqual({ height: 5, index: 0 })
    await addHeight(6, [{ tx: 'f', events: [] }])
    expect(await indexer.getTxLocation(hashTx(utf8ToBytes('f')))).toEqual({ height: 6, index: 0 })
  })

  it('finds a tx by consensus hash (any case) and its location', async () => {
    const hash = hashTx(utf8ToBytes('c'))
    expect(await indexer.getTxLocation(hash)).toEqual({ height: 2, index: 0 })
    expect(await indexer.getTx(hash)).toEqual({ height: 2, index: 0, tx: utf8ToBytes('c'), result: heights.get(2)!.txResults[0] })
    expect(await indexer.getTx(hashTx(utf8ToBytes('nope')))).toBeUndefined()
    expect(await search(`tx.hash='${bytesToUpperHex(hash).toLowerCase()}'`)).toEqual([{ height: 2, index: 0 }])
    expect(await search(`tx.hash='${bytesToUpperHex(hash)}' AND tx.height=1`)).toEqual([])
    expect(await search("tx.hash='zz'")).toEqual([])
  })

  it('finds txs by attribute, hex values in any letter case', async () => {
    expect(await search("ethereum_tx.ethereumTxHash='0xABCDEF0000000000000000000000000000000000000000000000000000000001'")).toEqual([
      { height: 1, index: 1 },
    ])
    expect(await search("tm.event='Tx' AND transfer.sender='alice'")).toEqual([
      { height: 1, index: 0 },
      { height: 2, index: 0 },
    ])
    expect(await search('transfer.amount > 10')).toEqual([
      { height: 1, index: 0 },
      { height: 2, index: 0 },
    ])
    expect(await search('transfer.amount EXISTS AND tx.height >= 2')).toEqual([{ height: 2, index: 0 }])
  })

  it('matches conditions on one event type within a single event', async () => {
    // At height 1 alice sent 5 and bob sent 50: no single event has alice AND 50.
    expect(await search("transfer.sender='alice' AND transfer.amount=50")).toEqual([{ height: 2, index: 0 }])
    expect(await search("transfer.sender='bob' AND transfer.amount=50")).toEqual([{ height: 1, index: 0 }])
  })

  it('does not index attributes with index: false, nor search with tm.event other than Tx', async () => {
    expect(await search("secret.key='x'")).toEqual([])
    expect(await search("tm.event='NewBlock' AND tx.height=2")).toEqual([])
  })

  it('ranges on tx.height', async () => {
    expect(await search('tx.height=1')).toEqual([
      { height: 1, index: 0 },
      { height: 1, index: 1 },
    ])
    expect(await search('tx.height>1 AND tx.height<=3')).toEqual([{ height: 2, index: 0 }])
    expect(await search('tx.height>=1')).toHaveLength(3)
  })

  it('searches blocks by height and by FinalizeBlock events', async () => {
    expect(await indexer.searchBlocks(q('block.height > 1'))).toEqual([2, 3])
    expect(await indexer.searchBlocks(q('block.height = 2'))).toEqual([2])
    expect(await indexer.searchBlocks(q('fee_market.base_fee < 900'))).toEqual([2])
    expect(await indexer.searchBlocks(q('fee_market.base_fee EXISTS AND block.height <= 1'))).toEqual([1])
    expect(await indexer.searchBlocks(q("tm.event='NewBlock' AND block.height >= 3"))).toEqual([3])
  })
})
