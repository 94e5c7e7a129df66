/**
 * The consensus RPC of a real dev node through @cosmjs/tendermint-rpc's Comet38Client (which checks
 * each reply's shape strictly and throws on what it does not expect): status, blocks, results, metas,
 * validators, commits (signatures verified), genesis, txs with inclusion proofs, broadcasts of good
 * and bad bytes, and the URI GET transport.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Comet38Client } from '@cosmjs/tendermint-rpc'
import { JsonRpcProvider, Wallet, getBytes, keccak256, parseEther } from 'ethers'
import { hashTx } from '../../src/comet/hash.js'
import { verifyMerkleProof } from '../../src/comet/merkle.js'
import type { Commit } from '../../src/comet/types.js'
import type { BlockIDFlag } from '../../src/abci/types.js'
import { ValidatorSet } from '../../src/comet/validator-set.js'
import { verifyCommit } from '../../src/comet/verify-commit.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { loadNodeKey, nodeIdOf } from '../../src/keystore/validator-key.js'
import { bytesToUpperHex } from '../../src/primitives/hex.js'
import type { BlockJson, ReceiptJson } from '../../src/api/eth/format.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'

const [KEY0, KEY1] = devAccounts(2).map((a) => a.privateKey)
const BOB = devAccounts(2)[1]!.address

type CosmCommit = Awaited<ReturnType<Comet38Client['commit']>>['commit']

/** cosmjs's decoded commit back into the node's Commit type (timestamps keep their nanoseconds). */
function toCommit(c: CosmCommit): Commit {
  return {
    height: c.height,
    round: c.round,
    blockId: { hash: c.blockId.hash, partSetHeader: { total: c.blockId.parts.total, hash: c.blockId.parts.hash } },
    signatures: c.signatures.map((s) => {
      const ms = s.timestamp ? s.timestamp.getTime() : 0
      return {
        blockIdFlag: s.blockIdFlag as unknown as BlockIDFlag,
        validatorAddress: s.validatorAddress ?? new Uint8Array(0),
        timestamp: s.timestamp
          ? { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 + (s.timestamp.nanoseconds ?? 0) }
          : { seconds: -62135596800, nanos: 0 },
        signature: s.signature ?? new Uint8Array(0),
      }
    }),
  }
}

describe('consensus RPC (cosmjs Comet38Client) against a dev node', () => {
  let t: TestNode
  let url: string
  let client: Comet38Client
  let provider: JsonRpcProvider

  beforeAll(async () => {
    t = await startTestNode()
    expect(t.addresses.cometRpc).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/)
    url = t.addresses.cometRpc!.replace(/^tcp:\/\//, 'http://')
    await waitFor(() => t.node.components.blockStore.height() >= 3, 20_000, 'height 3')
    client = await Comet38Client.connect(url)
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
  })
  afterAll(async () => {
    client?.disconnect()
    provider?.destroy()
    await t?.destroy()
  })

  it('status: a 0.38 node with its node id, latest block and validator power', async () => {
    const s = await client.status()
    expect(s.nodeInfo.version.startsWith('0.38.')).toBe(true)
    expect(s.nodeInfo.network).toBe('nodectl_31337-1')
    // cosmjs decodes the id from hex.
    expect(Buffer.from(s.nodeInfo.id).toString('hex')).toBe(nodeIdOf(await loadNodeKey(t.node.config.paths.nodeKey)))
    expect(s.nodeInfo.other.get('tx_index')).toBe('on')
    expect(s.nodeInfo.other.get('rpc_address')).toBe(t.addresses.cometRpc)
    expect(s.syncInfo.latestBlockHeight).toBeGreaterThan(0)
    expect(s.syncInfo.earliestBlockHeight).toBe(1)
    expect(s.syncInfo.catchingUp).toBe(false)
    expect(s.validatorInfo.votingPower).toBe(10n)
    expect(bytesToUpperHex(s.validatorInfo.address!)).toBe(bytesToUpperHex(t.node.components.engine.validatorAddress!))
  })

  it('block, blockchain and blockResults describe the same heights', async () => {
    const b = await client.block(2)
    expect(b.block.header.height).toBe(2)
    expect(b.block.header.chainId).toBe('nodectl_31337-1')
    expect(b.blockId.parts.total).toBeGreaterThan(0)
    expect(b.block.lastCommit?.height).toBe(1)
    const chain = await client.blockchain(1, 3)
    expect(chain.lastHeight).toBeGreaterThanOrEqual(3)
    expect(chain.blockMetas.map((m) => m.header.height)).toEqual([3, 2, 1])
    expect(chain.blockMetas[1]!.blockId.hash).toEqual(b.blockId.hash)
    expect(chain.blockMetas[1]!.blockSize).toBeGreaterThan(0)
    const r = await client.blockResults(2)
    expect(r.height).toBe(2)
    expect(r.results).toHaveLength(b.block.txs.length)
    // The EVM view reports the consensus block's encoded size (its part set bytes).
    const evmBlock = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x2', false])).result!
    expect(Number(evmBlock.size)).toBe(chain.blockMetas[1]!.blockSize)
  })

  it('validators of a past height and of the next height', async () => {
    const v = await client.validators({ height: 1 })
    expect(v.blockHeight).toBe(1)
    expect(v.total).toBe(1)
    expect(v.validators[0]!.votingPower).toBe(10n)
    expect(v.validators[0]!.pubkey?.algorithm).toBe('ed25519')
    const next = await client.validators({})
    expect(next.blockHeight).toBeGreaterThan((await client.status()).syncInfo.latestBlockHeight - 1)
  })

  it('commit: canonical for a past height, seen for the latest, and the signatures verify', async () => {
    const vals = await client.validators({ height: 2 })
    const set = ValidatorSet.fromUpdates(vals.validators.map((v) => ({ pubKey: v.pubkey!.data, power: v.votingPower })))
    const past = await client.commit(2)
    expect(past.canonical).toBe(true)
    expect(past.header.height).toBe(2)
    expect(past.commit.signatures[0]!.blockIdFlag).toBe(2)
    const blockId = (await client.block(2)).blockId
    expect(() =>
      verifyCommit(
        set,
        'nodectl_31337-1',
        { hash: blockId.hash, partSetHeader: { total: blockId.parts.total, hash: blockId.parts.hash } },
        2,
        toCommit(past.commit),
      ),
    ).not.toThrow()

    const latest = await client.commit()
    expect(latest.canonical).toBe(false)
    expect(latest.commit.height).toBe(latest.header.height)
    expect(latest.commit.signatures.some((s) => s.blockIdFlag === 2)).toBe(true)
  })

  it('genesis', async () => {
    const g = await client.genesis()
    expect(g.chainId).toBe('nodectl_31337-1')
    expect(g.validators).toHaveLength(1)
    expect(g.consensusParams.block?.maxBytes).toBeGreaterThan(0)
    expect((g.appState as { evm: { accounts: unknown[] } }).evm.accounts).toHaveLength(10)
  })

  it('finds an EVM tx sent with ethers by its consensus hash, with a proof against the data hash', async () => {
    const alice = new Wallet(KEY0!, provider)
    const raw = await alice.signTransaction(await alice.populateTransaction({ to: BOB, value: parseEther('1') }))
    const receipt = await (await provider.broadcastTransaction(raw)).wait()
    expect(receipt?.status).toBe(1)
    const bytes = getBytes(raw)
    const hash = hashTx(bytes)
    await waitFor(() => t.node.components.blockStore.height() >= receipt!.blockNumber, 5000, 'block in store')
    const r = await client.tx({ hash, prove: true })
    expect(r.height).toBe(receipt!.blockNumber)
    expect(r.tx).toEqual(bytes)
    expect(r.hash).toEqual(hash)
    expect(r.result.code).toBe(0)
    expect(r.result.events.some((e) => e.type === 'ethereum_tx')).toBe(true)
    const block = await client.block(r.height)
    expect(block.block.txs[r.index]).toEqual(bytes)
    expect(r.proof).toBeDefined()
    expect(r.proof!.rootHash).toEqual(block.block.header.dataHash)
    const proof = {
      total: r.proof!.proof.total,
      index: r.proof!.proof.index,
      leafHash: r.proof!.proof.leafHash,
      aunts: [...r.proof!.proof.aunts],
    }
    expect(verifyMerkleProof(r.proof!.rootHash, hash, proof)).toBe(true)
    // tx_search by tx.height finds it.
    const search = await client.txSearch({ query: `tx.height=${r.height}` })
    expect(search.txs.map((x) => x.hash)).toContainEqual(hash)
    // An unknown hash is an error, not a crash.
    await expect(client.tx({ hash: new Uint8Array(32) })).rejects.toThrow(/not found/)
  })

  it('broadcastTxSync: a signed EVM tx is accepted and committed; garbage gets a non-zero code', async () => {
    const bob = new Wallet(KEY1!, provider)
    const raw = getBytes(await bob.signTransaction(await bob.populateTransaction({ to: BOB, value: 1n })))
    const res = await client.broadcastTxSync({ tx: raw })
    expect(res.code).toBe(0)
    expect(res.hash).toEqual(hashTx(raw))
    const receipt = await waitFor(
      async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [keccak256(raw)])).result,
      10_000,
      'receipt',
    )
    expect(receipt.status).toBe('0x1')

    const bad = await client.broadcastTxSync({ tx: new Uint8Array([1, 2, 3, 4]) })
    expect(bad.code).not.toBe(0)
    expect(bad.log).toBeTruthy()
    // The same tx again after it was committed: the pool's reason, as a CheckTx code.
    const again = await client.broadcastTxSync({ tx: raw })
    expect(again.code).not.toBe(0)
    expect(again.log).toMatch(/nonce too low/)
    expect((await client.status()).syncInfo.latestBlockHeight).toBeGreaterThan(0)
  })

  it('a duplicate in the pool is the mempool error "tx already exists in cache"', async () => {
    const bob = new Wallet(KEY1!, provider)
    const raw = await bob.signTransaction(await bob.populateTransaction({ to: BOB, value: 2n }))
    const tx = Buffer.from(getBytes(raw)).toString('base64')
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'broadcast_tx_sync', params: { tx } },
        { jsonrpc: '2.0', id: 2, method: 'broadcast_tx_sync', params: { tx } },
      ]),
    })
    const replies = (await res.json()) as { id: number; result?: { code: number }; error?: { data: string } }[]
    expect(replies.filter((r) => r.result?.code === 0)).toHaveLength(1)
    expect(replies.find((r) => r.error)?.error?.data).toMatch(/tx already exists in cache/)
  })

  it('answers a plain URI GET with id -1', async () => {
    const res = await fetch(`${url}/status`)
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text).toContain('"id":-1')
    expect(JSON.parse(text).result.node_info.version).toMatch(/^0\.38\./)
    const health = await (await fetch(`${url}/health`)).json()
    expect(health).toEqual({ jsonrpc: '2.0', id: -1, result: {} })
  })

  it('abci_info and num_unconfirmed_txs', async () => {
    const info = await client.abciInfo()
    expect(info.lastBlockHeight).toBeGreaterThan(0)
    const n = await client.numUnconfirmedTxs()
    expect(n.total).toBeGreaterThanOrEqual(0)
  })
})
