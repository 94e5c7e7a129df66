/**
 * The compatibility judge: @cosmjs/tendermint-rpc's Comet38Client (over HTTP and WebSocket) and
 * connectComet's version detection must decode every response without throwing.
 */
import { Comet38Client, connectComet, isComet38Client } from '@cosmjs/tendermint-rpc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashTx } from '../../../../src/comet/hash.js'
import { bytesToUpperHex, utf8ToBytes } from '../../../../src/primitives/hex.js'
import { TXS } from './fake-backend.js'
import { startHarness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h.server.close()
})

async function exercise(client: Comet38Client): Promise<void> {
  const status = await client.status()
  expect(status.nodeInfo.version).toBe('0.38.25')
  expect(status.syncInfo.latestBlockHeight).toBe(3)
  expect(status.syncInfo.earliestBlockHeight).toBe(1)
  expect(status.validatorInfo.votingPower).toBe(10n)

  const block = await client.block(2)
  expect(block.blockId.hash).toEqual(h.backend.stored(2).meta.blockId.hash)
  expect(block.block.txs).toEqual(TXS[2])
  expect(block.block.lastCommit?.signatures[1]?.blockIdFlag).toBe(1)
  expect((await client.block()).block.header.height).toBe(3)
  expect((await client.block(1)).block.lastCommit).toBeNull()

  const results = await client.blockResults(2)
  expect(results.results).toHaveLength(3)
  expect(results.results[0]!.gasUsed).toBe(21000n)
  expect(results.validatorUpdates[0]!.votingPower).toBe(20n)
  expect(results.finalizeBlockEvents[0]!.type).toBe('block_bloom')
  expect((await client.blockResults(3)).consensusUpdates?.block?.maxGas).toBe(40_000_000)

  const chain = await client.blockchain()
  expect(chain.lastHeight).toBe(3)
  expect(chain.blockMetas.map((m) => m.header.height)).toEqual([3, 2, 1])
  expect((await client.blockchain(2, 3)).blockMetas).toHaveLength(2)

  const vals = await client.validators({})
  expect(vals.blockHeight).toBe(4)
  expect(vals.total).toBe(2)
  expect((await client.validatorsAll(2)).validators).toHaveLength(2)

  const commit = await client.commit(1)
  expect(commit.canonical).toBe(true)
  expect(commit.header.height).toBe(1)
  expect((await client.commit()).canonical).toBe(false)

  const genesis = await client.genesis()
  expect(genesis.chainId).toBe('test-chain')
  expect(genesis.validators).toHaveLength(2)

  const info = await client.abciInfo()
  expect(info.lastBlockHeight).toBe(3)

  const query = await client.abciQuery({ path: '/store/key', data: utf8ToBytes('k') })
  expect(query.value).toEqual(utf8ToBytes('value'))

  for (const [height, index] of [
    [2, 1],
    [3, 0],
  ] as const) {
    const tx = await client.tx({ hash: hashTx(TXS[height]![index]!), prove: true })
    expect(tx.height).toBe(height)
    expect(tx.index).toBe(index)
    expect(tx.proof?.rootHash).toEqual(h.backend.stored(height).block.header.dataHash)
  }

  const search = await client.txSearch({ query: 'tx.height=2', prove: true, order_by: 'desc' })
  expect(search.totalCount).toBe(3)
  expect((await client.txSearchAll({ query: 'tx.height=2' })).txs).toHaveLength(3)
  expect((await client.blockSearch({ query: 'block_bloom.bloom EXISTS' })).totalCount).toBe(2)

  const unconfirmed = await client.numUnconfirmedTxs()
  expect(unconfirmed.total).toBe(2)
  expect(unconfirmed.totalBytes).toBe(19)

  const tx = utf8ToBytes(`cosmjs-${Math.random()}`)
  const sync = await client.broadcastTxSync({ tx })
  expect(sync.code).toBe(0)
  expect(bytesToUpperHex(sync.hash)).toBe(bytesToUpperHex(hashTx(tx)))
  const asyncTx = utf8ToBytes(`cosmjs-async-${Math.random()}`)
  expect((await client.broadcastTxAsync({ tx: asyncTx })).hash).toEqual(hashTx(asyncTx))
  const committed = await client.broadcastTxCommit({ tx: utf8ToBytes(`commit-cosmjs-${Math.random()}`) })
  expect(committed.height).toBe(4)
  expect(committed.checkTx.code).toBe(0)

  await client.health()
}

describe('@cosmjs/tendermint-rpc', () => {
  it('Comet38Client over HTTP', async () => {
    const client = await Comet38Client.connect(h.url)
    try {
      await exercise(client)
    } finally {
      client.disconnect()
    }
  })

  it('connectComet picks Comet38Client from node_info.version', async () => {
    const client = await connectComet(h.url)
    try {
      expect(isComet38Client(client)).toBe(true)
      await exercise(client as Comet38Client)
    } finally {
      client.disconnect()
    }
  })

  it('Comet38Client over WebSocket (ws://…/websocket)', async () => {
    const client = await Comet38Client.connect(h.url.replace(/^http/, 'ws'))
    try {
      await exercise(client)
    } finally {
      client.disconnect()
    }
  })
})
