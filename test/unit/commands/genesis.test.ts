import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import GenesisAddAccount from '../../../src/commands/genesis/add-account.js'
import GenesisAddValidator from '../../../src/commands/genesis/add-validator.js'
import GenesisValidate from '../../../src/commands/genesis/validate.js'
import { initHome } from '../../../src/config/init-home.js'
import { generateKey } from '../../../src/keystore/validator-key.js'
import { KeyStore } from '../../../src/keystore/key-store.js'
import { LIGHT_SCRYPT } from '../../../src/keystore/key-file.js'
import { bytesToBase64, bytesToHex, bytesToUpperHex } from '../../../src/primitives/hex.js'
import { runCli } from '../../helpers/cli.js'

/** Hardhat/Anvil dev account 0: a well-known key, never worth anything. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

const made: string[] = []
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })))
})

let home: string
let genesisPath: string
const readGenesis = async (): Promise<{
  validators: { address: string; pub_key: { value: string }; power: string; name: string }[]
  app_state: { evm: { accounts: { address: string; balance: string; nonce: string }[] } }
}> => JSON.parse(await readFile(genesisPath, 'utf8'))

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'nodectl-cmd-genesis-'))
  made.push(home)
  genesisPath = join(home, 'config/genesis.json')
  await initHome({ home, moniker: 'node0', chainId: 'nodectl_4242-1' })
})

describe('nodectl genesis add-account', () => {
  it('adds an address with an amount in ether, then refuses it a second time', async () => {
    const run = await runCli(GenesisAddAccount, [DEV_ADDRESS.toLowerCase(), '1000ether', '--home', home])
    expect(run.result).toEqual({ address: DEV_ADDRESS, balance: (1000n * 10n ** 18n).toString(), genesis: genesisPath })
    expect((await readGenesis()).app_state.evm.accounts).toEqual([{ address: DEV_ADDRESS, balance: '1000000000000000000000', nonce: '0' }])

    const again = await runCli(GenesisAddAccount, [DEV_ADDRESS, '5gwei', '--home', home])
    expect(again.error?.message).toBe(`genesis.json: account ${DEV_ADDRESS} is already in app_state.evm.accounts`)
    expect(again.exitCode).toBe(1)
    expect((await readGenesis()).app_state.evm.accounts).toHaveLength(1)
  })

  it('looks a key name up in the home key store', async () => {
    const store = new KeyStore({ dir: join(home, 'keystore'), scrypt: LIGHT_SCRYPT })
    await store.importKey(Uint8Array.from(Buffer.from(DEV_KEY.slice(2), 'hex')), 'pass', { name: 'alice' })
    const run = await runCli(GenesisAddAccount, ['alice', '5gwei', '--home', home])
    expect(run.result?.address).toBe(DEV_ADDRESS)
    expect((await readGenesis()).app_state.evm.accounts[0]).toMatchObject({ address: DEV_ADDRESS, balance: '5000000000' })
  })

  it('names a bad amount or an unknown key name', async () => {
    const amount = await runCli(GenesisAddAccount, [DEV_ADDRESS, '1.5wei', '--home', home])
    expect(amount.error?.message).toBe('invalid amount "1.5wei": wei is indivisible')
    const name = await runCli(GenesisAddAccount, ['bob', '1', '--home', home])
    expect(name.error?.message).toBe(`invalid account "bob": not an address, nor a key name in the key store ${join(home, 'keystore')}`)
    expect(name.exitCode).toBe(1)
  })
})

describe('nodectl genesis add-validator', () => {
  it('adds a base64 or hex key with its power and name, and refuses a duplicate', async () => {
    const a = generateKey()
    const b = generateKey()
    const run = await runCli(GenesisAddValidator, [bytesToBase64(a.publicKey), '7', '--name', 'node1', '--home', home])
    expect(run.result).toEqual({
      address: bytesToUpperHex(a.address),
      pubKey: bytesToBase64(a.publicKey),
      power: '7',
      name: 'node1',
      genesis: genesisPath,
    })
    expect((await runCli(GenesisAddValidator, [bytesToHex(b.publicKey), '10', '--home', home])).error).toBeUndefined()
    const validators = (await readGenesis()).validators
    expect(validators.slice(1).map((v) => [v.address, v.power, v.name])).toEqual([
      [bytesToUpperHex(a.address), '7', 'node1'],
      [bytesToUpperHex(b.address), '10', ''],
    ])

    const again = await runCli(GenesisAddValidator, [bytesToHex(a.publicKey), '1', '--home', home])
    expect(again.error?.message).toBe(`genesis.json: validator ${bytesToUpperHex(a.address)} is already in validators`)
    expect(again.exitCode).toBe(1)
  })

  it('refuses a power that is not a positive integer and a key that is not 32 bytes', async () => {
    const key = bytesToBase64(generateKey().publicKey)
    expect((await runCli(GenesisAddValidator, [key, '0', '--home', home])).error?.message).toBe(
      'invalid power "0": want a positive integer',
    )
    expect((await runCli(GenesisAddValidator, ['abcd', '1', '--home', home])).error?.message).toBe(
      'invalid pubkey "abcd": want a 32-byte ed25519 public key in base64 or hex',
    )
    expect((await readGenesis()).validators).toHaveLength(1)
  })
})

describe('nodectl genesis validate', () => {
  it('accepts the genesis init wrote and an edited one', async () => {
    await runCli(GenesisAddAccount, [DEV_ADDRESS, '1ether', '--home', home])
    const run = await runCli(GenesisValidate, ['--home', home])
    expect(run.stdout).toEqual(['genesis.json is valid'])
    expect(run.result).toEqual({ genesis: genesisPath, chainId: 'nodectl_4242-1', validators: 1, accounts: 1 })
  })

  it.each([
    ['a bad chain id', (g: Record<string, unknown>) => (g.chain_id = 'nodectl'), /^genesis\.json: chain_id: /],
    ['no validators', (g: Record<string, unknown>) => (g.validators = []), /^genesis\.json: validators: at least one validator/],
    [
      'a validator without power',
      (g: { validators: { power: string }[] }) => (g.validators[0]!.power = '0'),
      /^genesis\.json: validators\[0\]\.power: must be positive/,
    ],
    [
      'a duplicate validator',
      (g: { validators: unknown[] }) => g.validators.push(g.validators[0]),
      /^genesis\.json: validators\[1\]\.pub_key: duplicate validator/,
    ],
    [
      'a malformed account',
      (g: { app_state: { evm: { accounts: unknown[] } } }) => g.app_state.evm.accounts.push({ address: '0x12', balance: '1' }),
      /^genesis\.json: app_state\.evm\.accounts\[0\]\.address: /,
    ],
  ])('reports %s with exit code 1', async (_, edit, message) => {
    const genesis = await readGenesis()
    edit(genesis as never)
    await writeFile(genesisPath, JSON.stringify(genesis))
    const run = await runCli(GenesisValidate, ['--home', home])
    expect(run.error?.message).toMatch(message)
    expect(run.exitCode).toBe(1)
  })
})
