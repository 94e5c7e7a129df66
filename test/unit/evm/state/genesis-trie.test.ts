import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Address, bytesToHex } from '@ethereumjs/util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Database } from '../../../../src/db/database.js'
import type { GenesisAccount } from '../../../../src/evm/genesis.js'
import { writeGenesisState } from '../../../../src/evm/state/genesis-trie.js'
import { createStateCopy } from '../../../../src/evm/state/state.js'
import { getCommon } from '../../../../src/evm/common.js'
import { insertGenesis } from './insert-genesis.js'

/** Deterministic, distinct bytes: `n` bytes from a seed (sha256 blocks). */
function bytes(seed: string, n: number): Uint8Array {
  const out = new Uint8Array(n)
  for (let block = 0; block * 32 < n; block++)
    out.set(
      createHash('sha256')
        .update(`${seed}/${block}`)
        .digest()
        .subarray(0, n - block * 32),
      block * 32,
    )
  return out
}

/** A storage value as genesis.ts gives it: no leading zero byte. */
function value(seed: string, n: number): Uint8Array {
  const v = bytes(seed, n)
  v[0] = v[0]! | 1
  return v
}

/** `count` accounts; every 7th has code, every 5th has storage (some slots with short values). */
function accounts(count: number): GenesisAccount[] {
  return Array.from({ length: count }, (_, i) => {
    const storage: [Uint8Array, Uint8Array][] = []
    if (i % 5 === 0)
      for (let s = 0; s < (i % 11) + 1; s++) storage.push([bytes(`slot ${i} ${s}`, 32), value(`value ${i} ${s}`, 1 + (s % 32))])
    return {
      address: bytes(`address ${i}`, 20),
      balance: BigInt(i) * 10n ** 15n,
      nonce: BigInt(i % 3),
      code: i % 7 === 0 ? bytes(`code ${i}`, 10 + i) : undefined,
      storage,
    }
  })
}

describe('genesis state built bottom-up', () => {
  let dir: string
  let db: Database
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genesis-trie-'))
    db = new Database({ path: join(dir, 'db') })
    await db.open()
  })
  afterEach(async () => {
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })

  it.each([0, 1, 2, 300, 2_500])('gives the root of inserting %i accounts one by one', async (count) => {
    const alloc = accounts(count)
    expect(bytesToHex(await writeGenesisState(db, alloc))).toBe(bytesToHex(await insertGenesis(alloc)))
  })

  it('writes a state that reads back: balances, code and storage', async () => {
    const alloc = accounts(300)
    const root = await writeGenesisState(db, alloc)
    const sm: MerkleStateManager = await createStateCopy(db, getCommon(1n), root)
    for (const a of [alloc[0]!, alloc[35]!, alloc[299]!]) {
      const address = new Address(a.address)
      expect((await sm.getAccount(address))?.balance).toBe(a.balance)
      expect(bytesToHex(await sm.getCode(address))).toBe(bytesToHex(a.code ?? new Uint8Array()))
      for (const [slot, value] of a.storage) expect(bytesToHex(await sm.getStorage(address, slot))).toBe(bytesToHex(value))
    }
  })
})
