/**
 * A real dev node process SIGKILLed in the middle of an evm_revert (docs/dev-chain.md, "Snapshots"), at
 * each point between its writes (test/helpers/revert-crash-child.ts): after the WAL's `#ENDHEIGHT`,
 * after the signer's rewind, before and after the one batch that rolls every store back, and after the
 * application reloaded. The node restarted on the same home is exactly on the old chain (killed before
 * the batch was written) or exactly on the reverted one (after), never a mix: the block store, the
 * consensus state, the EVM head and the consensus RPC agree on the height, every block below it is the
 * one seen before the kill, nothing above it is left, and the chain goes on from it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet, keccak256 } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BlockJson } from '../../src/api/eth/format.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { signDevTransfer } from '../helpers/dev-transfer.js'
import type { NodeAddresses } from '../../src/node/node.js'
import { bytesToHex } from '../../src/primitives/hex.js'
import { bundleChild, lineOf, spawnChild } from '../helpers/child-lines.js'
import { NO_EMPTY_BLOCKS_FLAGS, cometRpc, rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import type { RevertPoint } from '../helpers/revert-crash-child.js'

interface CometStatus {
  sync_info: { latest_block_height: string; latest_block_hash: string }
}

const [sender, recipient] = devAccounts(2)
const wallet = new Wallet(sender!.privateKey)

function transfer(nonce: number): Promise<string> {
  return signDevTransfer(wallet, nonce, recipient!.address, 1n)
}

/** Sends a signed transaction and waits (polling: the node is another process) for its receipt's block. */
async function sendAndWait(url: string, raw: string): Promise<number> {
  expect((await rpc(url, 'eth_sendRawTransaction', [raw])).error).toBeUndefined()
  for (;;) {
    const receipt = (await rpc<{ blockNumber: string } | null>(url, 'eth_getTransactionReceipt', [keccak256(raw)])).result
    if (receipt) return Number(receipt.blockNumber)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** The EVM hash of every block from 0 to `top`. */
async function evmHashes(url: string, top: number): Promise<string[]> {
  const hashes: string[] = []
  for (let h = 0; h <= top; h++)
    hashes.push((await rpc<BlockJson>(url, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).result!.hash)
  return hashes
}

/** Where the restarted node must be: the old chain when the kill came before the batch was written. */
const EXPECTED: Record<RevertPoint, 'old' | 'reverted'> = {
  'after-wal-end-height': 'old',
  'after-signer-rewind': 'old',
  'before-batch-write': 'old',
  'after-batch-write': 'reverted',
  'after-app-rewound': 'reverted',
}

describe('SIGKILL in the middle of evm_revert', () => {
  let script = ''
  const homes: string[] = []
  let restarted: TestNode | undefined

  beforeAll(async () => {
    script = await bundleChild('revert-crash-child')
  })
  afterAll(async () => {
    await restarted?.stop()
    await rm(script, { force: true })
    for (const home of homes) await rm(home, { recursive: true, force: true })
  })

  it.each(Object.keys(EXPECTED) as RevertPoint[])(
    'killed %s: the restarted node is on one chain, whole',
    async (point) => {
      const home = await mkdtemp(join(tmpdir(), 'nodectl-revert-crash-'))
      homes.push(home)
      const { child, output, exited } = spawnChild(script, [home, point])
      let old: string[]
      let reverted: string[]
      const removedTxs: string[] = []
      try {
        const { jsonRpcHttp: url } = await lineOf<NodeAddresses>(child, 'ready ', output)
        await sendAndWait(url!, await transfer(0))
        const snapshot = (await rpc<string>(url!, 'evm_snapshot')).result!
        const snapshotHeight = Number((await rpc<string>(url!, 'eth_blockNumber')).result)
        for (const nonce of [1, 2]) {
          const raw = await transfer(nonce)
          removedTxs.push(keccak256(raw))
          await sendAndWait(url!, raw)
        }
        const top = Number((await rpc<string>(url!, 'eth_blockNumber')).result)
        old = await evmHashes(url!, top)
        reverted = old.slice(0, snapshotHeight + 1)
        expect(top).toBeGreaterThan(snapshotHeight)

        const paused = lineOf<{ point: RevertPoint }>(child, 'paused ', output)
        // Never answered: the child stops inside it.
        void rpc(url!, 'evm_revert', [snapshot]).catch(() => undefined)
        expect((await paused).point).toBe(point)
        child.kill('SIGKILL')
        await exited
      } finally {
        child.kill('SIGKILL')
      }

      restarted = await startTestNode({ home, flags: NO_EMPTY_BLOCKS_FLAGS })
      const t = restarted
      const { blockStore, engine, app } = t.node.components
      const chain = EXPECTED[point] === 'old' ? old : reverted
      const height = chain.length - 1
      // Every store at the same height, read in one turn of the event loop.
      expect({ blockStore: blockStore.height(), consensus: engine.getState().lastBlockHeight, evm: app.latestHeight() }).toEqual({
        blockStore: height,
        consensus: height,
        evm: height,
      })
      // The consensus state's app hash is the EVM head's state root.
      expect(bytesToHex(engine.getState().appHash)).toBe(bytesToHex(app.latestBlock()!.stateRoot))
      expect(await evmHashes(t.url, height)).toEqual(chain)
      expect(Number((await rpc<string>(t.url, 'eth_blockNumber')).result)).toBe(height)
      const status = await cometRpc<CometStatus>(t, 'status')
      expect(Number(status.sync_info.latest_block_height)).toBe(height)
      expect(status.sync_info.latest_block_hash).toBe(bytesToHex(engine.getState().lastBlockId.hash).slice(2).toUpperCase())
      // Nothing of the other chain is left above it.
      expect(await blockStore.loadBlock(height + 1)).toBeUndefined()
      expect((await rpc(t.url, 'eth_getBlockByNumber', [`0x${(height + 1).toString(16)}`, false])).result).toBeNull()
      const receipts = await Promise.all(removedTxs.map(async (hash) => (await rpc(t.url, 'eth_getTransactionReceipt', [hash])).result))
      if (EXPECTED[point] === 'old') expect(receipts.every((r) => r !== null)).toBe(true)
      else expect(receipts).toEqual([null, null])

      // The chain goes on from that height.
      const nonce = Number((await rpc<string>(t.url, 'eth_getTransactionCount', [wallet.address, 'latest'])).result)
      const next = await transfer(nonce)
      expect((await rpc(t.url, 'eth_sendRawTransaction', [next])).error).toBeUndefined()
      await waitForBlock(t, async () => (await rpc(t.url, 'eth_getTransactionReceipt', [keccak256(next)])).result, 20_000, 'next receipt')
      const block = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false])).result!
      expect({ number: Number(block.number), parentHash: block.parentHash }).toEqual({ number: height + 1, parentHash: chain[height] })
      await restarted.stop()
      restarted = undefined
    },
    // A child process and a restart each: slow on a loaded 2-core machine.
    120_000,
  )
})
