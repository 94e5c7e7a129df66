import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { Wallet, decryptKeystoreJson, encryptKeystoreJson } from 'ethers'
import { afterAll, describe, expect, it } from 'vitest'
import { LIGHT_SCRYPT, WrongPassphraseError } from '../../../src/keystore/key-file.js'
import { AccountNotFoundError, DuplicateAccountError, KeyStore, KeyStoreError, NAMES_FILE } from '../../../src/keystore/key-store.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'

/** Temporary folders made by this file, removed after it. */
const made: string[] = []
async function newStore(): Promise<KeyStore> {
  const dir = await mkdtemp(join(tmpdir(), 'nodectl-keystore-'))
  made.push(dir)
  return new KeyStore({ dir: join(dir, 'keystore'), scrypt: LIGHT_SCRYPT })
}
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })))
})

/** The files of a store folder with their contents and mtimes, to show that nothing changed. */
async function snapshot(dir: string): Promise<Record<string, { text: string; mtimeMs: number }>> {
  const out: Record<string, { text: string; mtimeMs: number }> = {}
  for (const name of await readdir(dir))
    out[name] = { text: await readFile(join(dir, name), 'utf8'), mtimeMs: (await stat(join(dir, name))).mtimeMs }
  return out
}

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777

describe('KeyStore', () => {
  it('creates and imports keys in geth-named 0600 files of a 0700 folder, and finds them by name or address in any case', async () => {
    const store = await newStore()
    const created = await store.create('pw', { name: 'alice' })
    const wallet = Wallet.createRandom()
    const imported = await store.importKey(hexToBytes(wallet.privateKey), 'pw')
    expect(imported.address).toBe(wallet.address)
    expect(imported.name).toBeUndefined()

    for (const account of [created, imported]) {
      expect(basename(account.file)).toMatch(/^UTC--\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{9}Z--[0-9a-f]{40}$/)
      expect(basename(account.file).endsWith(account.address.slice(2).toLowerCase())).toBe(true)
      expect(await mode(account.file)).toBe(0o600)
    }
    expect(await mode(store.dir)).toBe(0o700)
    expect(await mode(join(store.dir, NAMES_FILE))).toBe(0o600)

    expect((await store.list()).map((a) => [a.name, a.address])).toEqual(
      expect.arrayContaining([
        ['alice', created.address],
        [undefined, wallet.address],
      ]),
    )
    expect((await store.find('alice')).address).toBe(created.address)
    const lower = '0x' + wallet.address.slice(2).toLowerCase()
    const upper = '0x' + wallet.address.slice(2).toUpperCase()
    for (const form of [lower, upper, wallet.address]) expect((await store.find(form)).address).toBe(wallet.address)
    await expect(store.find('bob')).rejects.toThrow(AccountNotFoundError)
    expect(await store.lookup('0x' + '11'.repeat(20))).toBeUndefined()

    const { privateKey } = await store.decrypt(upper, 'pw')
    expect(bytesToHex(privateKey)).toBe(wallet.privateKey)
  })

  it('refuses a wrong passphrase and leaves every file untouched', async () => {
    const store = await newStore()
    const account = await store.create('right', { name: 'k' })
    const before = await snapshot(store.dir)
    await expect(store.decrypt('k', 'wrong')).rejects.toThrow('could not decrypt key with given password')
    await expect(store.changePassphrase('k', 'wrong', 'new')).rejects.toThrow(WrongPassphraseError)
    expect(await snapshot(store.dir)).toEqual(before)
    expect((await store.decrypt(account.address, 'right')).address).toBe(account.address)
  })

  it('lets exactly one of two concurrent imports of the same key succeed, across two instances', async () => {
    const store = await newStore()
    const other = new KeyStore({ dir: store.dir, scrypt: LIGHT_SCRYPT })
    const key = hexToBytes(Wallet.createRandom().privateKey)
    const results = await Promise.allSettled([store.importKey(key, 'a'), other.importKey(key, 'b')])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(rejected).toHaveLength(1)
    expect(rejected[0]!.reason).toBeInstanceOf(DuplicateAccountError)
    expect(await store.list()).toHaveLength(1)
    expect((await readdir(store.dir)).filter((f) => f.endsWith('.tmp') || f === '.lock')).toEqual([])
  })

  it('imports under an address the caller gives (lower case accepted), a file that opens to the same key', async () => {
    const store = await newStore()
    const wallet = Wallet.createRandom()
    const imported = await store.importKey(hexToBytes(wallet.privateKey), 'pw', { address: wallet.address.toLowerCase() })
    expect(imported.address).toBe(wallet.address)
    const opened = await decryptKeystoreJson(await readFile(imported.file, 'utf8'), 'pw')
    expect(opened.address).toBe(wallet.address)
    expect(opened.privateKey).toBe(wallet.privateKey)
  })

  it('refuses a duplicate address, a taken name and names that are not labels', async () => {
    const store = await newStore()
    const wallet = Wallet.createRandom()
    await store.importKey(hexToBytes(wallet.privateKey), 'pw', { name: 'alice' })
    await expect(store.importKey(hexToBytes(wallet.privateKey), 'pw')).rejects.toThrow(
      `account ${wallet.address} is already in the key store as "alice"`,
    )
    await expect(store.create('pw', { name: 'alice' })).rejects.toThrow(`the name "alice" is already used by ${wallet.address}`)
    await expect(store.create('pw', { name: '0x' + '22'.repeat(20) })).rejects.toThrow('a name cannot look like an address')
    await expect(store.create('pw', { name: 'has space' })).rejects.toThrow(KeyStoreError)
    const bob = await store.create('pw', { name: 'bob' })
    await expect(store.setName(bob.address, 'alice')).rejects.toThrow('already used')
    expect((await store.setName(bob.address, 'robert')).name).toBe('robert')
    expect((await store.find('robert')).address).toBe(bob.address)
    expect(await store.lookup('bob')).toBeUndefined()
    expect(await store.list()).toHaveLength(2)
  })

  it('imports a file ethers wrote, as is, and ethers opens the files it writes', async () => {
    const store = await newStore()
    const wallet = Wallet.createRandom()
    const theirs = await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, 'their pass', {
      scrypt: { N: 1024 },
    })
    await expect(store.importKeyFile(theirs, 'wrong')).rejects.toThrow(WrongPassphraseError)
    expect(await store.list()).toEqual([])
    const account = await store.importKeyFile(theirs, 'their pass', { name: 'from-ethers' })
    expect(account.address).toBe(wallet.address)
    const stored = JSON.parse(await readFile(account.file, 'utf8'))
    expect(stored.crypto.kdfparams.n).toBe(1024) // kept as is: its own KDF and passphrase
    expect((await decryptKeystoreJson(await readFile(account.file, 'utf8'), 'their pass')).privateKey).toBe(wallet.privateKey)
    await expect(store.importKeyFile(theirs, 'their pass')).rejects.toThrow(DuplicateAccountError)

    const ours = await store.create('our pass')
    const opened = await decryptKeystoreJson(await readFile(ours.file, 'utf8'), 'our pass')
    expect(opened.address).toBe(ours.address)
  })

  it('changes a passphrase in place, re-encrypting at the store strength', async () => {
    const store = await newStore()
    const wallet = Wallet.createRandom()
    const theirs = await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, 'old', { scrypt: { N: 1024 } })
    const account = await store.importKeyFile(theirs, 'old', { name: 'w' })
    const changed = await store.changePassphrase('w', 'old', 'new')
    expect(changed.file).toBe(account.file)
    expect(await mode(account.file)).toBe(0o600)
    expect(JSON.parse(await readFile(account.file, 'utf8')).crypto.kdfparams).toMatchObject({
      n: LIGHT_SCRYPT.n,
      r: LIGHT_SCRYPT.r,
      p: LIGHT_SCRYPT.p,
    })
    await expect(store.decrypt('w', 'old')).rejects.toThrow(WrongPassphraseError)
    expect(bytesToHex((await store.decrypt('w', 'new')).privateKey)).toBe(wallet.privateKey)
    expect(await store.list()).toHaveLength(1)
  })

  it('deletes a key file and its name', async () => {
    const store = await newStore()
    const keep = await store.create('pw', { name: 'keep' })
    const gone = await store.create('pw', { name: 'gone' })
    const deleted = await store.delete('0x' + gone.address.slice(2).toLowerCase())
    expect(deleted.address).toBe(gone.address)
    await expect(stat(gone.file)).rejects.toThrow()
    await expect(store.find('gone')).rejects.toThrow(AccountNotFoundError)
    expect(JSON.parse(await readFile(join(store.dir, NAMES_FILE), 'utf8'))).toEqual({ keep: keep.address })
    expect((await store.list()).map((a) => a.address)).toEqual([keep.address])
  })

  it('lists a key that another instance added to the same folder (as a running node sees offline imports)', async () => {
    const node = await newStore()
    expect(await node.list()).toEqual([])
    await node.create('pw', { name: 'first' })
    expect(await node.list()).toHaveLength(1) // fills the node's cache
    const offline = new KeyStore({ dir: node.dir, scrypt: LIGHT_SCRYPT })
    const added = await offline.create('pw', { name: 'second' })
    const seen = await node.list()
    expect(seen.map((a) => a.name)).toEqual(expect.arrayContaining(['first', 'second']))
    expect((await node.find('second')).address).toBe(added.address)
    await offline.delete('second')
    expect(await node.lookup(added.address)).toBeUndefined()
  })
})
