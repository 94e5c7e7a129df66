/**
 * genesis.json as a node reads it (config/genesis-file.ts, genesis-accounts.ts): everything but the
 * accounts parsed as loadGenesis parses it, the accounts read one by one from the file, the same values
 * whatever the window (a few bytes put every token across a window's end), and the file's own app_state
 * bytes for InitChain.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readGenesisBalances, visitGenesisAccounts, type GenesisAccountsVisitor } from '../../../src/config/genesis-accounts.js'
import { loadNodeGenesis, readAppStateBytes } from '../../../src/config/genesis-file.js'
import { createGenesis, decodeGenesis, encodeGenesis, loadGenesis } from '../../../src/config/genesis.js'
import type { GenesisDoc } from '../../../src/config/genesis-doc.js'
import { bytesToUtf8, utf8ToBytes } from '../../../src/primitives/hex.js'
import { equalJsonText } from '../../../src/utils/json-text.js'

const KEY = new Uint8Array(32).fill(7)

/** A genesis.json value whose accounts have storage, code, odd keys, escapes and non-ASCII text in places a reader could trip on. */
function genesisJson(): Record<string, unknown> {
  const json = JSON.parse(encodeGenesis(createGenesis({ chainId: 'nodectl_9000-1', validators: [{ pubKey: KEY }] }))) as Record<
    string,
    unknown
  >
  const accounts = [
    { address: '0x' + '11'.repeat(20), balance: '1000', nonce: '0' },
    {
      storage: { '0x1': '0x05', '0x02': '0x00', ['0x' + 'ab'.repeat(32)]: '0x' + '00'.repeat(31) + '09' },
      address: '0x' + '22'.repeat(20),
      balance: '7',
      code: '0x6001600155',
    },
    { address: '0x' + '33'.repeat(20), balance: '0', storage: {}, note: 'q"uo\\te \u00e9\u4e2d [{' },
    { address: '0x' + '44'.repeat(20), balance: '12345678901234567890', nonce: '3', storage: { '0x7': '0x0102' }, extra: [1, { a: [] }] },
  ]
  json.app_state = {
    fee_market: { base_fee: '7', elasticity_multiplier: 2, base_fee_change_denominator: 8, min_gas_price: '0', no_base_fee: false },
    evm: { validator_admin: '0x' + '11'.repeat(20), accounts, fee_recipients: {} },
  }
  return json
}

/** Every call a visitor receives, in order. */
async function visits(doc: GenesisDoc, windowBytes?: number): Promise<unknown[]> {
  const calls: unknown[] = []
  const visitor: GenesisAccountsVisitor = {
    slot: (index, key, value, address) => void calls.push(['slot', index, key, value, address]),
    account: (index, value) => void calls.push(['account', index, value]),
  }
  await visitGenesisAccounts(doc, visitor, windowBytes)
  return calls
}

describe('genesis.json read by a node', () => {
  let dir: string
  let path: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-genesis-file-'))
    path = join(dir, 'genesis.json')
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  async function write(json: unknown, indent?: number): Promise<string> {
    const text = JSON.stringify(json, null, indent)
    await writeFile(path, text)
    return text
  }

  it.each([0, 2])('parses all but the accounts as loadGenesis does, and points at them (indent %i)', async (indent) => {
    const text = await write(genesisJson(), indent)
    const full = await loadGenesis(path)
    const doc = await loadNodeGenesis(path)
    const { source, appState, ...rest } = doc
    const { appState: fullState, ...fullRest } = full
    expect(rest).toEqual(fullRest)
    const { accounts, ...evm } = fullState.evm as Record<string, unknown>
    expect(appState).toEqual({ ...fullState, evm })
    const bytes = utf8ToBytes(text)
    expect(JSON.parse(bytesToUtf8(bytes.subarray(source!.accounts!.start, source!.accounts!.end)))).toEqual(accounts)
    expect(JSON.parse(bytesToUtf8(readAppStateBytes(doc)))).toEqual(fullState)
  })

  it('reads the accounts from the file as from the parsed document, whatever the window', async () => {
    await write(genesisJson(), 2)
    const parsed = await visits(await loadGenesis(path))
    const doc = await loadNodeGenesis(path)
    expect(parsed.filter((c) => (c as unknown[])[0] === 'slot')).toHaveLength(4)
    for (const window of [2, 3, 5, 8, 13, 64, undefined]) expect(await visits(doc, window)).toEqual(parsed)
  })

  it('reads an empty list, and a list of one', async () => {
    const json = genesisJson()
    const evm = (json.app_state as { evm: { accounts: unknown[] } }).evm
    evm.accounts = []
    await write(json)
    expect(await visits(await loadNodeGenesis(path), 3)).toEqual([])
    evm.accounts = [{ address: '0x' + '55'.repeat(20), balance: '1' }]
    await write(json)
    expect(await visits(await loadNodeGenesis(path), 3)).toEqual([['account', 0, evm.accounts[0]]])
  })

  it('reads balances only until all asked for are found', async () => {
    const text = JSON.stringify(genesisJson())
    // Garbage before the third account: a reader that went on would fail there.
    const third = text.indexOf('{"address":"0x' + '33'.repeat(20))
    await writeFile(path, `${text.slice(0, third)}!!! ${text.slice(third)}`)
    const doc = await loadNodeGenesis(path)
    const balances = await readGenesisBalances(doc, ['0x' + '22'.repeat(20), '0x' + '11'.repeat(20)])
    expect(balances).toEqual(
      new Map([
        ['0x' + '11'.repeat(20), 1000n],
        ['0x' + '22'.repeat(20), 7n],
      ]),
    )
    await expect(readGenesisBalances(doc, ['0x' + '99'.repeat(20)])).rejects.toThrow(/^genesis.json: malformed JSON: .* at byte \d+$/)
  })

  it('names the file for malformed JSON and refuses a file changed since it was read', async () => {
    await writeFile(path, '{"chain_id": "nodectl_9000-1", "app_state": {"evm": {"accounts": [{"a": 1}')
    await expect(loadNodeGenesis(path)).rejects.toThrow(/^genesis.json: malformed JSON: unexpected end of JSON at byte/)
    await write(genesisJson())
    const doc = await loadNodeGenesis(path)
    await write(genesisJson(), 2)
    await expect(visits(doc)).rejects.toThrow(/changed since the node read it/)
    expect(() => readAppStateBytes(doc)).toThrow(/changed since the node read it/)
  })

  it('keeps a document without accounts whole', async () => {
    const json = genesisJson()
    delete (json.app_state as { evm: { accounts?: unknown } }).evm.accounts
    await write(json)
    const doc = await loadNodeGenesis(path)
    expect(doc.source).toBeUndefined()
    expect(doc).toEqual(decodeGenesis(json))
  })
})

describe('equalJsonText', () => {
  const same = (a: string, b: string) => equalJsonText(utf8ToBytes(a), utf8ToBytes(b))

  it('ignores whitespace between tokens only', () => {
    const value = { a: [1, { b: 'x y\\" z' }], c: '' }
    expect(same(JSON.stringify(value), JSON.stringify(value, null, 2))).toBe(true)
    expect(same('{"a": "x y"}', '{"a":"xy"}')).toBe(false)
    expect(same('{"a":"\\"b"}', '{"a":"\\" b"}')).toBe(false)
    expect(same('[1]', '[1] ')).toBe(true)
    expect(same('[1]', '[1,2]')).toBe(false)
  })
})
