/**
 * Nodes of one chain over real p2p (TCP, Noise, Yamux on loopback), in-process: two validators, and a full
 * node that is not a validator started after they have moved on. It block-syncs the heights it missed
 * (`BlockSyncStatus` events, the engine's sync status), then follows consensus; a transaction sent to it is gossiped
 * to the validators and committed; `dump_consensus_state` shows each peer's round state.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initDevHome } from '../../src/config/init-home.js'
import type { ConsensusEvents } from '../../src/consensus/events.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { testNodeSettings } from '../../src/node/test-settings.js'
import { bytesToUpperHex } from '../../src/primitives/hex.js'
import { toQuantity } from '../../src/primitives/quantity.js'
import type { BlockJson } from '../../src/api/eth/format.js'
import { cometRpc, committed, rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { hashHeaderJson } from '../helpers/eth-header.js'

/** Empty blocks come every 100 ms here, so the validators are well ahead when the full node starts. */
const FLAGS = { 'consensus.create_empty_blocks_interval': '100ms' }

function heightOf(node: TestNode): number {
  return node.node.components.engine.height
}

function peerAddress(node: TestNode): string {
  const host = node.node.components.p2p!.host
  return `${host.nodeId}@127.0.0.1:${host.listenPort}`
}

describe('two validators and a late full node over p2p', () => {
  const homes: string[] = []
  const nodes: TestNode[] = []
  let full: TestNode
  const syncStatuses: ConsensusEvents['BlockSyncStatus'][] = []

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) {
      const home = await mkdtemp(join(tmpdir(), 'nodectl-network-'))
      homes.push(home)
      await initDevHome(home, { settings: testNodeSettings(`node${i}`) })
    }
    // One genesis, byte for byte the same in every home: the validators of homes 0 and 1; home 2's key is not in it.
    const genesisPath = (home: string) => join(home, 'config', 'genesis.json')
    const genesis = JSON.parse(await readFile(genesisPath(homes[0]!), 'utf8')) as { validators: unknown[] }
    const second = JSON.parse(await readFile(genesisPath(homes[1]!), 'utf8')) as { validators: unknown[] }
    genesis.validators.push(...second.validators)
    for (const home of homes) await writeFile(genesisPath(home), JSON.stringify(genesis, null, 2))

    nodes.push(await startTestNode({ home: homes[0]!, flags: FLAGS }))
    nodes.push(await startTestNode({ home: homes[1]!, flags: { ...FLAGS, 'p2p.persistent_peers': peerAddress(nodes[0]!) } }))
    await committed(nodes[0]!, 8)

    const peers = nodes.map(peerAddress).join(',')
    full = await startTestNode({
      home: homes[2]!,
      flags: { ...FLAGS, 'p2p.persistent_peers': peers },
      beforeStart: (node) => node.components.engine.events.on('BlockSyncStatus', (s) => syncStatuses.push(s)),
    })
    nodes.push(full)
  }, 60_000)

  afterAll(async () => {
    for (const n of nodes.splice(0)) await n.stop()
    for (const h of homes.splice(0)) await rm(h, { recursive: true, force: true })
  })

  it('the late full node block-syncs what it missed, then follows the chain with the same consensus and EVM hashes', async () => {
    await new Promise<void>((resolve) => {
      if (syncStatuses.some((s) => s.complete)) return resolve()
      const off = full.node.components.engine.events.on('BlockSyncStatus', (s) => {
        if (!s.complete) return
        off()
        resolve()
      })
    })
    expect(syncStatuses[0]).toEqual({ complete: false, height: 0 })
    const synced = syncStatuses.find((s) => s.complete)!.height
    expect(synced).toBeGreaterThanOrEqual(8)
    expect(full.node.components.engine.syncStatus()).toMatchObject({ catchingUp: false, progress: { startHeight: 0, height: synced } })

    const target = heightOf(nodes[0]!) + 3
    await Promise.all(nodes.map((n) => committed(n, target)))
    for (let h = 1; h <= target; h++) {
      const hashes = await Promise.all(
        nodes.map(async (n) => bytesToUpperHex((await n.node.components.blockStore.loadBlockMeta(h))!.blockId.hash)),
      )
      expect(new Set(hashes).size).toBe(1)
      // The EVM view agrees too, block-synced heights included: one Ethereum header per height.
      const evmBlocks = await Promise.all(
        nodes.map(async (n) => (await rpc<BlockJson>(n.url, 'eth_getBlockByNumber', [toQuantity(h), false])).result!),
      )
      expect(new Set(evmBlocks.map((b) => JSON.stringify(b))).size).toBe(1)
      expect(hashHeaderJson(evmBlocks[0]!)).toBe(evmBlocks[0]!.hash)
      expect(evmBlocks[0]!.cometHash).toBe('0x' + hashes[0]!.toLowerCase())
    }
    expect((await rpc(full.url, 'eth_syncing')).result).toBe(false)
    const status = await cometRpc<{ sync_info: { catching_up: boolean } }>(full, 'status')
    expect(status.sync_info.catching_up).toBe(false)
  }, 60_000)

  it('a transaction sent to the full node reaches the validators and is committed', async () => {
    const wallet = new Wallet(devAccounts()[3]!.privateKey)
    const raw = await wallet.signTransaction({
      to: devAccounts()[4]!.address,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      nonce: 0,
      chainId: 31337n,
      type: 2,
    })
    const hash = (await rpc<string>(full.url, 'eth_sendRawTransaction', [raw])).result!
    const receipt = async (n: TestNode) => (await rpc<{ status: string } | null>(n.url, 'eth_getTransactionReceipt', [hash])).result
    await new Promise<void>((resolve) => {
      const off = nodes[0]!.node.components.engine.events.on('Tx', () => {
        off()
        resolve()
      })
    })
    await committed(full, heightOf(nodes[0]!))
    for (const n of nodes) expect(await receipt(n)).toMatchObject({ status: '0x1' })
  }, 60_000)

  it('dump_consensus_state shows each peer with the round state it announced', async () => {
    const dump = await cometRpc<{ peers: { node_address: string; peer_state: { round_state: { height: string; step: number } } }[] }>(
      nodes[0]!,
      'dump_consensus_state',
    )
    expect(dump.peers).toHaveLength(2)
    for (const p of dump.peers) {
      expect(Number(p.peer_state.round_state.height)).toBeGreaterThan(8)
      expect(p.peer_state.round_state.step).toBeGreaterThanOrEqual(1)
    }
    expect((await rpc<number>(nodes[0]!.url, 'net_peerCount')).result).toBe(2)
  })
})
