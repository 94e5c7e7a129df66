import { afterEach, describe, expect, it } from 'vitest'
import { MissingStateError } from '../../../../src/evm/errors.js'
import type { EvmApplication } from '../../../../src/evm/app.js'
import type { StatePruner } from '../../../../src/evm/state/state-pruner.js'
import { trieKey } from '../../../../src/evm/state/trie-db.js'
import { referencedKeys } from '../../../../src/evm/state/trie-node-refs.js'
import { Prefix, prefixEnd } from '../../../../src/db/prefixes.js'
import { createAddress } from '../../../../src/evm/store/evm-records.js'
import { bytesToHex, concatBytes, hexToBytes } from '../../../../src/primitives/hex.js'
import { ADDRESS2, DEV_ADDRESS, DEV_KEY, KEY2, blockHash, createHarness, deployCode, sign1559, word, type Harness } from '../helpers.js'

/** Runtime: SSTORE(calldata[0:32], calldata[32:64]). */
const SLOTS_RUNTIME = hexToBytes('0x6020356000355500')
const RECIPIENTS = [1n, 2n, 3n, 4n, 5n].map((n) => bytesToHex(word(0xbeef00n + n).subarray(12)) as `0x${string}`)
const SLOTS = [1n, 2n, 3n]

/** Every stored key the state under `root` reaches, and the keys it reaches that are not stored. */
async function walk(h: Harness, root: Uint8Array): Promise<{ reached: Set<string>; missing: string[] }> {
  const reached = new Set<string>()
  const missing: string[] = []
  const stack = [Buffer.from(root).toString('hex')]
  while (stack.length > 0) {
    const key = stack.pop()!
    if (reached.has(key)) continue
    const value = await h.db.get(trieKey(key))
    if (value === undefined) {
      missing.push(key)
      continue
    }
    reached.add(key)
    stack.push(...referencedKeys(key, value))
  }
  return { reached, missing }
}

interface Reads {
  balances: bigint[]
  slots: string[]
  code: string[]
}

/** Every balance, slot and code of the test's accounts at `height`, through the application's reads. */
async function readAll(app: EvmApplication, contracts: Uint8Array[], height: number): Promise<Reads> {
  const accounts = [DEV_ADDRESS, ADDRESS2, ...RECIPIENTS].map((a) => hexToBytes(a))
  const balances = await Promise.all([...accounts, ...contracts].map((a) => app.getBalance(a, height)))
  const slots: string[] = []
  for (const c of contracts) for (const s of SLOTS) slots.push(bytesToHex(await app.getStorageAt(c, word(s), height)))
  const code = await Promise.all(contracts.map(async (c) => bytesToHex(await app.getCode(c, height))))
  return { balances, slots, code }
}

function pruner(app: EvmApplication): StatePruner {
  return (app as unknown as { pruner: StatePruner }).pruner
}

async function storedTrieKeys(h: Harness): Promise<Set<string>> {
  const start = Uint8Array.of(Prefix.trie)
  const keys = await h.db.keys({ gte: start, lt: prefixEnd(start) })
  return new Set(keys.map((k) => Buffer.from(k.subarray(1)).toString('hex')))
}

describe('state pruning', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.app.close()
    await h?.close()
    h = undefined
  })

  it('keeps every kept height whole, frees the rest, refuses pruned heights with geth’s error', async () => {
    h = await createHarness({ app: { pruning: { keepRecent: 4, interval: 5 } } })
    const c = h.app.common
    let devNonce = 0n
    let nonce2 = 0n
    const contracts = [createAddress(hexToBytes(DEV_ADDRESS), 0n), createAddress(hexToBytes(DEV_ADDRESS), 1n)]
    const deployed = await h.finalize([
      sign1559(c, DEV_KEY, { nonce: devNonce++, data: deployCode(SLOTS_RUNTIME), gasLimit: 200_000n }),
      sign1559(c, DEV_KEY, { nonce: devNonce++, data: deployCode(SLOTS_RUNTIME), gasLimit: 200_000n }),
    ])
    const reads = new Map<number, Reads>()
    const roots = new Map<number, Uint8Array>([[1, deployed.appHash]])
    // Values from a small set, so that nodes die and come back; both contracts often hold the same
    // storage (one shared storage trie).
    for (let i = 0; i < 33; i++) {
      const txs: Uint8Array[] = []
      const slot = SLOTS[i % SLOTS.length]!
      const value = BigInt((i * 7) % 3)
      for (const [k, contract] of contracts.entries()) {
        if (k === 1 && i % 4 === 0) continue
        const data = concatBytes(word(slot), word(value))
        txs.push(sign1559(c, DEV_KEY, { nonce: devNonce++, to: bytesToHex(contract) as `0x${string}`, data, gasLimit: 100_000n }))
      }
      if (i % 3 !== 2) txs.push(sign1559(c, KEY2, { nonce: nonce2++, to: RECIPIENTS[i % RECIPIENTS.length], value: BigInt(i + 1) }))
      const height = h.height
      const res = await h.finalize(txs)
      expect(res.txResults.map((r) => r.log)).toEqual(txs.map(() => ''))
      roots.set(height, res.appHash)
      // Each run ends before the next block, so that every interval has its run.
      await h.app.pruningIdle()
      reads.set(height, await readAll(h.app, contracts, height))
    }
    await h.app.pruningIdle()
    const head = h.app.latestHeight()
    // The last run was at the last multiple of 5; it kept that height and the 4 below it.
    const lastRun = head - (head % 5)
    expect(h.app.lowestStateHeight()).toBe(lastRun - 4)
    const stored = await storedTrieKeys(h)
    const kept = new Set<string>()
    for (let height = h.app.lowestStateHeight(); height <= head; height++) {
      const { reached, missing } = await walk(h, roots.get(height)!)
      expect(missing).toEqual([])
      for (const k of reached) kept.add(k)
      expect(await readAll(h.app, contracts, height)).toEqual(reads.get(height))
    }
    // What is stored beyond the kept state is no more than the kept heights' own leftovers (nodes a
    // block wrote and replaced within itself); every pruned height's root is gone.
    expect(stored.size - kept.size).toBeLessThan(kept.size / 2)
    for (let height = 1; height < h.app.lowestStateHeight(); height++) {
      const root = roots.get(height)!
      if (!kept.has(Buffer.from(root).toString('hex'))) expect(stored.has(Buffer.from(root).toString('hex'))).toBe(false)
      const read = h.app.getBalance(hexToBytes(DEV_ADDRESS), height)
      await expect(Promise.resolve(read)).rejects.toThrow(MissingStateError)
      await expect(Promise.resolve(read)).rejects.toThrow(`historical state ${Buffer.from(root).toString('hex')} is not available`)
    }
    const query = await h.app.query({ path: `/evm/balance/${DEV_ADDRESS}`, data: new Uint8Array(), height: 1, prove: false })
    expect(query.log).toBe(`failed to load state at height 1; version does not exist (latest height: ${head})`)
    // Reopened, the node goes on from where pruning got.
    await h.reopen()
    expect(h.app.lowestStateHeight()).toBe(lastRun - 4)
    expect(await readAll(h.app, contracts, head)).toEqual(reads.get(head))
  })

  it('never deletes a node a block re-creates while a run frees it', async () => {
    h = await createHarness({ app: { pruning: { keepRecent: 2, interval: 5 } } })
    const c = h.app.common
    const contract = createAddress(hexToBytes(DEV_ADDRESS), 0n)
    const to = bytesToHex(contract) as `0x${string}`
    let nonce = 0n
    const setSlot = (value: bigint): Uint8Array =>
      sign1559(c, DEV_KEY, { nonce: nonce++, to, data: concatBytes(word(1n), word(value)), gasLimit: 100_000n })
    const transfer = (n: bigint): Uint8Array => sign1559(c, KEY2, { nonce: n, to: RECIPIENTS[0], value: 1n })
    await h.finalize([sign1559(c, DEV_KEY, { nonce: nonce++, data: deployCode(SLOTS_RUNTIME), gasLimit: 200_000n })]) // 1
    await h.finalize([setSlot(0xaan)]) // 2: the storage trie {1: 0xaa}
    const storageA = (await h.app.getProof(contract, [], 2)).storageHash
    await h.finalize([setSlot(0xbbn)]) // 3: it is replaced
    for (let n = 0n; h.height < 10; n++) await h.finalize([transfer(n)]) // 4..9
    await h.app.pruningIdle()
    // Height 10's Commit starts a run that releases heights 0..7: the storage trie {1: 0xaa} is freed
    // (height 3's leftovers held it until then).
    const app = h.app
    await app.finalizeBlock(blockRequest(10, [transfer(6n)]))
    const committing = app.commit()
    // Holds the run's first write until height 11 has staged the storage trie {1: 0xaa} again.
    let open!: () => void
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    void pruner(app).writeLock.run(() => gate)
    await committing
    await app.finalizeBlock(blockRequest(11, [setSlot(0xaan)]))
    open()
    // Height 11's write is queued before the run's releases: they must not delete what it wrote.
    await app.commit()
    await app.pruningIdle()
    expect(app.lowestStateHeight()).toBe(8)
    expect((await app.getProof(contract, [], 11)).storageHash).toBe(storageA)
    expect(bytesToHex(await app.getStorageAt(contract, word(1n), 11))).toBe(bytesToHex(word(0xaan)))
    expect((await walk(h, (await app.getBlock(11))!.stateRoot)).missing).toEqual([])
    // The next run counts height 11 with the re-created nodes; its state stays whole after it.
    h.height = 12
    for (let n = 7n; h.height <= 15; n++) await h.finalize([transfer(n)])
    await app.pruningIdle()
    expect(app.lowestStateHeight()).toBe(13)
    for (let height = 13; height <= 15; height++) expect((await walk(h, (await app.getBlock(height))!.stateRoot)).missing).toEqual([])
    expect(bytesToHex(await app.getStorageAt(contract, word(1n), 15))).toBe(bytesToHex(word(0xaan)))

    function blockRequest(height: number, txs: Uint8Array[]) {
      h!.time += 2
      return {
        txs,
        decidedLastCommit: { round: 0, votes: [] },
        hash: blockHash(height),
        height,
        time: { seconds: h!.time, nanos: 0 },
        nextValidatorsHash: new Uint8Array(32),
        proposerAddress: new Uint8Array(20).fill(0xab),
      }
    }
  })

  it('keeps a pinned height and every height above it until unpinned', async () => {
    h = await createHarness({ app: { pruning: { keepRecent: 2, interval: 5 } } })
    const c = h.app.common
    const app = h.app
    let nonce = 0n
    const block = async () => {
      await h!.finalize([sign1559(c, KEY2, { nonce: nonce++, to: RECIPIENTS[1], value: 1n })])
      await app.pruningIdle()
    }
    while (h.height <= 6) await block()
    expect(app.lowestStateHeight()).toBe(3)
    app.pinState(4)
    expect(() => app.pinState(2)).toThrow(MissingStateError)
    while (h.height <= 15) await block()
    expect(app.lowestStateHeight()).toBe(4)
    expect(await app.getBalance(hexToBytes(RECIPIENTS[1]!), 4)).toBe(4n)
    app.unpinState(4)
    while (h.height <= 20) await block()
    expect(app.lowestStateHeight()).toBe(18)
  })
})
