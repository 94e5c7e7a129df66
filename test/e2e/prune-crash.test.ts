/**
 * A pruning node SIGKILLed in the middle of a pruning run (its first release written, the next one
 * held: test/helpers/prune-crash-child.ts), then restarted on the same home: every height it still
 * answers for has its whole state (every trie node and code on disk, the sender's nonce what the blocks
 * say), the heights below are refused with geth's error, the chain goes on, and the next run finishes
 * the job (what the killed run left behind is gone).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { signDevTransfer } from '../helpers/dev-transfer.js'
import type { BlockJson } from '../../src/api/eth/format.js'
import type { NodeAddresses } from '../../src/node/node.js'
import { Prefix, prefixEnd } from '../../src/db/prefixes.js'
import { trieKey } from '../../src/evm/state/trie-db.js'
import { referencedKeys } from '../../src/evm/state/trie-node-refs.js'
import { bundleChild, lineOf, spawnChild } from '../helpers/child-lines.js'
import type { PrunePaused } from '../helpers/prune-crash-child.js'
import { rpc, startTestNode, waitFor, waitForBlock, type TestNode } from '../helpers/dev-node.js'

/** Keeps the latest height and 3 below it, pruned every 10 heights (the shortest interval Cosmos allows). */
const PRUNE_FLAGS = { pruning: 'custom', 'pruning-keep-recent': '3', 'pruning-interval': '10' }
const [sender, ...recipients] = devAccounts(5)
const wallet = new Wallet(sender!.privateKey)

function transfer(nonce: number): Promise<string> {
  return signDevTransfer(wallet, nonce, recipients[nonce % recipients.length]!.address, BigInt(nonce + 1))
}

const toQuantity = (n: number): string => `0x${n.toString(16)}`

/** The trie keys the state of `root` reaches that are not on disk, and the keys it reaches. */
async function walk(t: TestNode, root: string): Promise<{ reached: Set<string>; missing: string[] }> {
  const db = t.node.components.db
  const reached = new Set<string>()
  const missing: string[] = []
  const stack = [root.slice(2)]
  while (stack.length > 0) {
    const key = stack.pop()!
    if (reached.has(key)) continue
    const value = await db.get(trieKey(key))
    if (value === undefined) missing.push(key)
    else {
      reached.add(key)
      stack.push(...referencedKeys(key, value))
    }
  }
  return { reached, missing }
}

/** Checks every height the node answers for, from its lowest height with state up; returns the trie keys they reach. */
async function checkKeptHeights(t: TestNode): Promise<Set<string>> {
  const app = t.node.components.app
  const kept = new Set<string>()
  let sent = 0
  for (let h = 0; h <= app.latestHeight(); h++) {
    const block = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', [toQuantity(h), false])).result!
    sent += block.transactions.length
    if (h < app.lowestStateHeight()) continue
    const { reached, missing } = await walk(t, block.stateRoot)
    expect(missing, `height ${h}`).toEqual([])
    for (const k of reached) kept.add(k)
    expect((await rpc(t.url, 'eth_getTransactionCount', [sender!.address, toQuantity(h)])).result).toBe(toQuantity(sent))
  }
  return kept
}

async function storedTrieKeys(t: TestNode): Promise<number> {
  const start = Uint8Array.of(Prefix.trie)
  return (await t.node.components.db.keys({ gte: start, lt: prefixEnd(start) })).length
}

describe('SIGKILL during state pruning', () => {
  let script = ''
  let home = ''
  let restarted: TestNode | undefined

  beforeAll(async () => {
    script = await bundleChild('prune-crash-child')
    home = await mkdtemp(join(tmpdir(), 'nodectl-prune-crash-'))
  })
  afterAll(async () => {
    await restarted?.stop()
    await rm(script, { force: true })
    await rm(home, { recursive: true, force: true })
  })

  it('keeps every kept height whole, and the next run finishes the job', async () => {
    const { child, output, exited } = spawnChild(script, [home, JSON.stringify(PRUNE_FLAGS)])
    let nonce = 0
    try {
      const addresses = await lineOf<NodeAddresses>(child, 'ready ', output)
      const url = addresses.jsonRpcHttp!
      let paused: PrunePaused | undefined
      const pausing = lineOf<PrunePaused>(child, 'paused ', output).then((p) => {
        paused = p
        return p
      })
      // A transfer a block until the run stops: the state changes at every height. Once it stops, the
      // node's Commit waits behind it, and calls that wait for one are left unanswered.
      const nonceIs = (n: number) =>
        rpc(url, 'eth_getTransactionCount', [sender!.address, 'latest']).then((r) => r.result === toQuantity(n))
      while (!paused) {
        const raw = await transfer(nonce)
        void rpc(url, 'eth_sendRawTransaction', [raw]).catch(() => undefined)
        const n = ++nonce
        await Promise.race([pausing, waitFor(async () => paused ?? (await nonceIs(n).catch(() => false)), 60_000, `transfer ${n - 1}`)])
      }
      child.kill('SIGKILL')
      await exited
    } finally {
      child.kill('SIGKILL')
    }

    restarted = await startTestNode({ home, dev: false, flags: PRUNE_FLAGS })
    const t = restarted
    const app = t.node.components.app
    expect(app.lowestStateHeight()).toBeGreaterThan(0)
    await checkKeptHeights(t)
    const below = app.lowestStateHeight() - 1
    const refused = await rpc(t.url, 'eth_getBalance', [sender!.address, toQuantity(below)])
    const missing = { code: -32000, message: expect.stringMatching(/^historical state [0-9a-f]{64} is not available$/) }
    expect(refused.error).toMatchObject(missing)
    const call = { from: sender!.address, to: recipients[0]!.address, value: '0x1' }
    expect((await rpc(t.url, 'eth_call', [call, toQuantity(below)])).error).toMatchObject(missing)
    expect((await rpc(t.url, 'eth_getProof', [sender!.address, [], toQuantity(below)])).error).toMatchObject(missing)
    // Tracing a block replays it on its parent's state.
    expect((await rpc(t.url, 'debug_traceBlockByNumber', [toQuantity(below + 1), {}])).error).toMatchObject(missing)

    // The chain goes on; the run at the next multiple of 10 releases up to 3 below it.
    const target = (Math.floor(app.latestHeight() / 10) + 1) * 10
    nonce = Number((await rpc<string>(t.url, 'eth_getTransactionCount', [sender!.address, 'latest'])).result)
    while (app.latestHeight() < target) {
      const raw = await transfer(nonce)
      expect((await rpc(t.url, 'eth_sendRawTransaction', [raw])).error).toBeUndefined()
      const n = nonce++
      await waitForBlock(
        t,
        async () => (await rpc(t.url, 'eth_getTransactionCount', [sender!.address, 'latest'])).result === toQuantity(n + 1),
      )
    }
    await waitForBlock(t, () => app.lowestStateHeight() >= target - 3, 60_000, 'the next pruning run')
    await app.pruningIdle()
    const kept = await checkKeptHeights(t)
    const capabilities = (await rpc<Record<string, unknown>>(t.url, 'eth_capabilities')).result!
    expect(capabilities.state).toEqual({
      disabled: false,
      oldestBlock: toQuantity(app.lowestStateHeight()),
      deleteStrategy: { type: 'window', retentionBlocks: '0x4' },
    })
    // Only the kept heights' own leftovers (nodes a block wrote and replaced within itself) are on disk besides.
    expect((await storedTrieKeys(t)) - kept.size).toBeLessThan(kept.size / 2)
  }, 180_000)
})
