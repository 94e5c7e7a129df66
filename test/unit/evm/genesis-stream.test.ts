/**
 * The genesis accounts read from genesis.json as InitChain takes them (readGenesisAccounts over a
 * node's document): the same state root as the parsed accounts give, the same errors naming the
 * account, and the dev chain's notes of every address and slot.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createGenesis, encodeGenesis } from '../../../src/config/genesis.js'
import { loadNodeGenesis } from '../../../src/config/genesis-file.js'
import { Database } from '../../../src/db/database.js'
import { GenesisNotes, loadNotedAccounts } from '../../../src/evm/dev/preimages.js'
import { feedGenesisAccounts, parseAppState, readGenesisAccounts } from '../../../src/evm/genesis.js'
import { writeGenesisState } from '../../../src/evm/state/genesis-trie.js'
import { bytesToHex } from '../../../src/primitives/hex.js'

const KEY = new Uint8Array(32).fill(9)

const hex = (n: number, bytes: number): string => '0x' + n.toString(16).padStart(bytes * 2, '0')

/** `count` accounts: storage on every 4th (short keys, a zero value, one slot given twice), code on every 7th, storage before the address on every 9th. */
function accountsJson(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const storage: Record<string, string> = {}
    if (i % 4 === 0) {
      for (let s = 0; s < (i % 13) + 1; s++) storage[hex(s * 7919 + i, 32)] = hex(i * 31 + s + 1, 1 + (s % 20))
      storage['0x1'] = '0x05'
      storage['0x01'] = '0x06'
      storage['0x2'] = '0x00'
    }
    const account = { address: hex(0x1000 + i, 20), balance: String(BigInt(i) * 10n ** 15n), nonce: String(i % 3) }
    const code = i % 7 === 0 ? { code: hex(0x6001 + i, 4) } : {}
    if (i % 4 !== 0) return { ...account, ...code }
    return i % 9 === 0 ? { storage, ...account, ...code } : { ...account, ...code, storage }
  })
}

describe('genesis accounts read from genesis.json', () => {
  let dir: string
  let dbs: Database[]
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-genesis-stream-'))
    dbs = []
  })
  afterEach(async () => {
    for (const db of dbs) await db.close()
    await rm(dir, { recursive: true, force: true })
  })

  async function openDb(): Promise<Database> {
    const db = new Database({ path: join(dir, `db${dbs.length}`) })
    await db.open()
    dbs.push(db)
    return db
  }

  /** A node's genesis document of a file with these accounts, and the file's app_state. */
  async function nodeGenesis(accounts: unknown[]) {
    const json = JSON.parse(encodeGenesis(createGenesis({ chainId: 'nodectl_9000-1', validators: [{ pubKey: KEY }] })))
    json.app_state.evm.accounts = accounts
    const path = join(dir, 'genesis.json')
    await writeFile(path, JSON.stringify(json, null, 2))
    return { doc: await loadNodeGenesis(path), appState: json.app_state as unknown }
  }

  it('gives the root of the parsed accounts', async () => {
    const { doc, appState } = await nodeGenesis(accountsJson(300))
    const parsed = await writeGenesisState(await openDb(), parseAppState(appState).accounts)
    const streamed = await writeGenesisState(await openDb(), readGenesisAccounts(doc))
    expect(bytesToHex(streamed)).toBe(bytesToHex(parsed))
  })

  it.each([
    ['balance', { balance: '1.5' }, 'app_state.evm.accounts[2].balance: not a decimal integer'],
    ['address', { address: '0x12' }, 'app_state.evm.accounts[2].address: not a 0x-prefixed 20-byte hex address'],
    ['code', { code: '6000' }, 'app_state.evm.accounts[2].code: not 0x-prefixed hex bytes'],
    [
      'storage key',
      { storage: { '0xzz': '0x01' } },
      'app_state.evm.accounts[2].storage.0xzz: key is not 0x-prefixed hex of at most 32 bytes',
    ],
    ['storage', { storage: '0x01' }, 'app_state.evm.accounts[2].storage: not an object'],
    ['duplicate', { address: hex(0x1000, 20).toUpperCase().replace('0X', '0x') }, 'app_state.evm.accounts[2].address: duplicate account'],
  ])('names the account: %s', async (_name, change, message) => {
    const accounts = accountsJson(4)
    accounts[2] = { ...accounts[2], ...change }
    const { doc } = await nodeGenesis(accounts)
    await expect(writeGenesisState(await openDb(), readGenesisAccounts(doc))).rejects.toThrow(message)
  })

  it('notes every address and slot for the dev chain, the slots of an account whose storage comes first too', async () => {
    const accounts = accountsJson(10)
    const { doc, appState } = await nodeGenesis(accounts)
    const db = await openDb()
    const notes = new GenesisNotes(db)
    await feedGenesisAccounts(readGenesisAccounts(doc), notes)
    await notes.flush()
    const noted = new Map((await loadNotedAccounts(db)).map((n) => [bytesToHex(n.address), n.slots.map(bytesToHex).sort()]))
    const expected = new Map(
      parseAppState(appState).accounts.map((a) => [
        bytesToHex(a.address),
        [...new Set(a.storage.map(([slot]) => bytesToHex(slot)))].sort(),
      ]),
    )
    expect(noted).toEqual(expected)
    expect(noted.get(hex(0x1000, 20))!.length).toBeGreaterThan(0)
  })
})
