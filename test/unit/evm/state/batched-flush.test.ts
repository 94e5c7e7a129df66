/**
 * The batched flush (ethereumjs-patches.ts installBatchedFlush: each trie updated once with all its
 * changed keys) gives the state roots of the library's own writes, key by key, over blocks that create,
 * change and delete accounts, slots and code.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, MapDB, bytesToHex, createAddressFromString, type Address } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { installBatchedFlush, installStorageWriteFix } from '../../../../src/evm/state/ethereumjs-patches.js'
import { seededRandom as random } from '../../../helpers/seeded-random.js'

const addressOf = (i: number): Address => createAddressFromString(`0x${(0x1000 + i).toString(16).padStart(40, '0')}`)
const word = (n: number): Uint8Array => {
  const out = new Uint8Array(32)
  new DataView(out.buffer).setUint32(28, n)
  return out
}

/** The batched flush, or the library's (which a debug state manager keeps). */
function stateManager(batched: boolean): MerkleStateManager {
  const trie = new MerklePatriciaTrie({ db: new MapDB(), useKeyHashing: true, valueEncoding: 'view' })
  const caches = new Caches({
    account: { size: 1000, type: 'ordered_map' },
    storage: { size: 1000, type: 'ordered_map' },
    code: { size: 100, type: 'ordered_map' },
  })
  const sm = new MerkleStateManager({ trie, caches })
  ;(sm as unknown as { DEBUG: boolean }).DEBUG = !batched
  return sm
}

/** One block of random writes, the same on each state manager; the roots after it. */
async function block(sms: MerkleStateManager[], rand: () => number, height: number): Promise<string[]> {
  const ops: ((sm: MerkleStateManager) => Promise<void>)[] = []
  for (let i = 0; i < 40; i++) {
    const address = addressOf(Math.floor(rand() * 12))
    const r = rand()
    const slot = word(Math.floor(rand() * 60))
    const value = rand() < 0.3 ? new Uint8Array(0) : word(1 + Math.floor(rand() * 1e9))
    const balance = BigInt(Math.floor(rand() * 1e6))
    if (r < 0.15) ops.push((sm) => sm.putAccount(address, new Account(BigInt(height), balance)))
    else if (r < 0.2) ops.push((sm) => sm.deleteAccount(address))
    else if (r < 0.23)
      ops.push(async (sm) => void ((await sm.getAccount(address)) && (await sm.putCode(address, Uint8Array.of(0x60, height, 0x00)))))
    else ops.push(async (sm) => void ((await sm.getAccount(address)) && (await sm.putStorage(address, slot, value))))
  }
  const roots: string[] = []
  for (const sm of sms) {
    await sm.checkpoint()
    for (const op of ops) await op(sm)
    await sm.commit()
    roots.push(bytesToHex(await sm.getStateRoot()))
  }
  return roots
}

describe('the batched flush', () => {
  beforeAll(() => {
    installStorageWriteFix()
    installBatchedFlush()
  })

  it('gives the roots of the library writes, block after block', async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const rand = random(seed)
      const sms = [stateManager(true), stateManager(false)]
      for (let height = 1; height <= 12; height++) {
        const [batched, library] = await block(sms, rand, height)
        expect(batched, `seed ${seed} height ${height}`).toBe(library)
      }
      // The state the batched flush wrote reads back from its tries alone (caches cleared).
      sms[0]!.clearCaches()
      for (let i = 0; i < 12; i++) {
        const address = addressOf(i)
        expect((await sms[0]!.getAccount(address))?.serialize()).toEqual((await sms[1]!.getAccount(address))?.serialize())
        if (!(await sms[1]!.getAccount(address))) continue
        for (let s = 0; s < 60; s++) expect(await sms[0]!.getStorage(address, word(s))).toEqual(await sms[1]!.getStorage(address, word(s)))
      }
    }
  })
})
