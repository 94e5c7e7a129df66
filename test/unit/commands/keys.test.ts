/**
 * Every `nodectl keys` command through oclif's runner (runCli), offline, over a temp home with
 * --light-kdf. stdin is not a terminal under vitest, so these also run the no-terminal paths.
 */
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet, decryptKeystoreJson, encryptKeystoreJson } from 'ethers'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isInteractive, NEW_PASSWORD_ENV, PASSWORD_ENV } from '../../../src/cli/passphrase.js'
import KeysAdd from '../../../src/commands/keys/add.js'
import KeysChangePassword from '../../../src/commands/keys/change-password.js'
import KeysDelete from '../../../src/commands/keys/delete.js'
import KeysExport from '../../../src/commands/keys/export.js'
import KeysImportKeystore from '../../../src/commands/keys/import-keystore.js'
import KeysImport from '../../../src/commands/keys/import.js'
import KeysList from '../../../src/commands/keys/list.js'
import KeysShow from '../../../src/commands/keys/show.js'
import type { KeyResult } from '../../../src/cli/keystore-command.js'
import { jsonOf, runCli, withStdoutTerminal } from '../../helpers/cli.js'

/** Hardhat/Anvil dev account 0: a well-known key, never worth anything. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const PASS = 'correct horse'

const made: string[] = []
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })))
})

let tmp: string
let home: string
/** `--home <tmp> --light-kdf` and the rest. */
const keys = (...args: string[]): string[] => [...args, '--home', home, '--light-kdf']
const saved = { [PASSWORD_ENV]: process.env[PASSWORD_ENV], [NEW_PASSWORD_ENV]: process.env[NEW_PASSWORD_ENV] }

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'nodectl-cmd-keys-'))
  made.push(tmp)
  home = join(tmp, 'home')
  process.env[PASSWORD_ENV] = PASS
  delete process.env[NEW_PASSWORD_ENV]
})
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

/** A file holding `text` in the temp folder. */
async function fileWith(name: string, text: string): Promise<string> {
  const path = join(tmp, name)
  await writeFile(path, text)
  return path
}

describe('nodectl keys', () => {
  it('has no terminal under the test runner', () => {
    expect(isInteractive()).toBe(false)
  })

  it('import <hex> --name x with NODECTL_PASSWORD, then list --json shows the address; the file opens in ethers', async () => {
    const imported = await runCli(KeysImport, keys(DEV_KEY, '--name', 'x'))
    expect(imported.error).toBeUndefined()
    expect(imported.result).toMatchObject({ name: 'x', address: DEV_ADDRESS })
    expect(imported.stderr.join('\n')).toMatch(/Warning: .*visible in your shell history and in the process list/)
    expect(imported.stdout.join('\n')).not.toContain(DEV_KEY.slice(2))

    const list = await runCli(KeysList, keys('--json'))
    const listed = jsonOf<KeyResult[]>(list)
    expect(listed).toEqual([{ name: 'x', address: DEV_ADDRESS, file: imported.result!.file }])
    expect(listed[0].file).toBe(join(home, 'keystore', listed[0].file.split('/').pop()!))
    const opened = await decryptKeystoreJson(await readFile(listed[0].file, 'utf8'), PASS)
    expect(opened.privateKey).toBe(DEV_KEY)

    const table = await withStdoutTerminal(true, () => runCli(KeysList, keys()))
    const piped = await runCli(KeysList, keys())
    expect(piped.stdout.join('\n')).toMatch(/^x\t0x[0-9a-fA-F]{40}\t\//)
    expect(table.stdout.join('\n')).toMatch(/name.*address.*file/)
    expect(table.stdout.join('\n')).toContain(DEV_ADDRESS)
  })

  it('fails at once without a terminal and without a passphrase source, naming both', async () => {
    delete process.env[PASSWORD_ENV]
    const started = Date.now()
    const run = await runCli(KeysAdd, keys('--name', 'a'))
    expect(run.error?.message).toBe(`no passphrase: there is no terminal to prompt on; give --password-file FILE or set ${PASSWORD_ENV}`)
    expect(run.exitCode).toBe(1)
    expect(Date.now() - started).toBeLessThan(5_000)
    const json = await runCli(KeysImport, keys(DEV_KEY, '--json'))
    expect(jsonOf(json)).toEqual({ error: { message: expect.stringContaining('--password-file FILE or set NODECTL_PASSWORD') } })
    expect(json.exitCode).toBe(1)
    expect((await runCli(KeysList, keys('--json'))).stdout.join('')).toBe('[]')
  })

  it('takes the passphrase from --password-file, and the key from --key-file or fails naming it', async () => {
    delete process.env[PASSWORD_ENV]
    const wallet = Wallet.createRandom()
    const passFile = await fileWith('pass.txt', 'from file\nsecond line ignored\n')
    const keyFile = await fileWith('w.key', wallet.privateKey.slice(2) + '\n')
    const run = await runCli(KeysImport, keys('--key-file', keyFile, '--password-file', passFile, '--json'))
    expect(jsonOf(run)).toMatchObject({ address: wallet.address, name: null })
    expect(run.stderr).toEqual([]) // no warning: the key was not on the command line
    expect((await decryptKeystoreJson(await readFile(run.result!.file, 'utf8'), 'from file')).address).toBe(wallet.address)

    const noKey = await runCli(KeysImport, keys('--password-file', passFile))
    expect(noKey.error?.message).toMatch(
      /no private key: there is no terminal to prompt on; give it with --key-file FILE or as the argument/,
    )
    const bad = await runCli(KeysImport, keys('0x1234', '--password-file', passFile))
    expect(bad.error?.message).toBe('invalid private key: want 64 hex digits (0x optional)')
    const added = await runCli(KeysAdd, keys('--name', 'second', '--password-file', passFile))
    expect((await decryptKeystoreJson(await readFile(added.result!.file, 'utf8'), 'from file')).address).toBe(added.result!.address)
  })

  it('refuses a duplicate import and a taken name with a clear message', async () => {
    await runCli(KeysImport, keys(DEV_KEY, '--name', 'x'))
    const again = await runCli(KeysImport, keys(DEV_KEY.slice(2).toUpperCase()))
    expect(again.error?.message).toMatch(new RegExp(`^account ${DEV_ADDRESS} is already in the key store as "x"`))
    expect(again.exitCode).toBe(1)
    const twoNames = await runCli(KeysAdd, keys('y', '--name', 'z'))
    expect(twoNames.exitCode).toBe(2)
    expect(twoNames.error?.message).toBe('two names given: "y" and --name "z"')
    const taken = await runCli(KeysAdd, keys('--name', 'x', '--json'))
    expect(jsonOf<{ error: { message: string } }>(taken).error.message).toBe(`the name "x" is already used by ${DEV_ADDRESS}`)
    expect(jsonOf(await runCli(KeysList, keys('--json')))).toHaveLength(1)
  })

  it('show finds an account by name or by address in any case', async () => {
    // The name as evmosd keys add takes it: an argument (--name works too).
    const added = (await runCli(KeysAdd, keys('alice'))).result!
    expect(added.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    for (const form of ['alice', added.address.toLowerCase(), '0x' + added.address.slice(2).toUpperCase()]) {
      const shown = await runCli(KeysShow, keys(form, '--json'))
      expect(jsonOf(shown)).toMatchObject({ name: 'alice', address: added.address, file: added.file, kdf: 'scrypt n=4096 r=8 p=6' })
    }
    const human = await runCli(KeysShow, keys('alice'))
    expect(human.stdout.join('\n')).toContain(added.address)
    const missing = await runCli(KeysShow, keys('bob', '--json'))
    expect(jsonOf(missing)).toEqual({ error: { message: expect.stringMatching(/^no account named or with address "bob"/) } })
    expect(missing.exitCode).toBe(1)
  })

  it('add, import and import-keystore print the address alone into a pipe, the address and file on a terminal', async () => {
    const keyFile = await fileWith('key.txt', DEV_KEY)
    const piped = await withStdoutTerminal(false, () => runCli(KeysAdd, keys('--name', 'p')))
    expect(piped.stdout).toEqual([piped.result!.address])
    const imported = await withStdoutTerminal(false, () => runCli(KeysImport, keys('--key-file', keyFile)))
    expect(imported.stdout).toEqual([DEV_ADDRESS])
    const wallet = Wallet.createRandom()
    const source = await fileWith(
      'w.json',
      await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, PASS, { scrypt: { N: 1024 } }),
    )
    const kept = await withStdoutTerminal(false, () => runCli(KeysImportKeystore, keys(source)))
    expect(kept.stdout).toEqual([wallet.address])
    const human = await withStdoutTerminal(true, () => runCli(KeysAdd, keys('--name', 't')))
    expect(human.stdout).toEqual([`Created ${human.result!.address} ("t")`, `  file ${human.result!.file}`])
  })

  it('import-keystore keeps an ethers file as is, after checking its own passphrase', async () => {
    const wallet = Wallet.createRandom()
    const source = await fileWith(
      'ethers.json',
      await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, 'their pass', { scrypt: { N: 1024 } }),
    )
    const before = await readFile(source, 'utf8')
    const wrong = await runCli(KeysImportKeystore, keys(source))
    expect(wrong.error?.message).toBe('could not decrypt key with given password')
    expect(wrong.exitCode).toBe(1)
    const run = await runCli(KeysImportKeystore, keys(source, '--name', 'eth', '--password-file', await fileWith('p', 'their pass')))
    expect(run.result).toMatchObject({ name: 'eth', address: wallet.address })
    expect(JSON.parse(await readFile(run.result!.file, 'utf8')).crypto.kdfparams.n).toBe(1024)
    expect(await readFile(source, 'utf8')).toBe(before)
    const notV3 = await runCli(KeysImportKeystore, keys(await fileWith('x.json', '{"version":1}')))
    expect(notV3.error?.message).toMatch(/^not a Web3 Secret Storage v3 key file: version 1/)
  })

  it('export --keystore writes a new 0600 file ethers opens, refuses to overwrite, and prints to stdout', async () => {
    await runCli(KeysImport, keys(DEV_KEY, '--name', 'x'))
    const out = join(tmp, 'exported.json')
    const run = await runCli(KeysExport, keys('x', '--keystore', '--out', out))
    expect(run.error).toBeUndefined()
    expect((await stat(out)).mode & 0o777).toBe(0o600)
    expect((await decryptKeystoreJson(await readFile(out, 'utf8'), PASS)).privateKey).toBe(DEV_KEY)
    const again = await runCli(KeysExport, keys('x', '--keystore', '--out', out))
    expect(again.error?.message).toBe(`--out ${out} already exists; not overwriting it`)
    const printed = await runCli(KeysExport, keys(DEV_ADDRESS.toLowerCase(), '--keystore'))
    expect((await decryptKeystoreJson(printed.stdout.join('\n'), PASS)).address).toBe(DEV_ADDRESS)
    const json = jsonOf(await runCli(KeysExport, keys('x', '--keystore', '--json')))
    expect(json).toMatchObject({ address: DEV_ADDRESS, out: null, keyFile: { version: 3 } })
  })

  it('export --unsafe-raw warns, needs --yes without a terminal, and the passphrase', async () => {
    await runCli(KeysImport, keys(DEV_KEY, '--name', 'x'))
    const refused = await runCli(KeysExport, keys('x', '--unsafe-raw'))
    expect(refused.error?.message).toBe(
      `not printing the private key of ${DEV_ADDRESS}: there is no terminal to confirm on; pass --yes to confirm`,
    )
    expect(refused.stdout.join('')).not.toContain(DEV_KEY.slice(2))
    const raw = await runCli(KeysExport, keys('x', '--unsafe-raw', '--yes'))
    expect(raw.stderr.join('\n')).toMatch(/Warning: this prints the unencrypted private key/)
    expect(raw.stdout).toEqual([DEV_KEY])
    process.env[PASSWORD_ENV] = 'wrong'
    const wrong = await runCli(KeysExport, keys('x', '--unsafe-raw', '--yes'))
    expect(wrong.error?.message).toBe('could not decrypt key with given password')
    const neither = await runCli(KeysExport, keys('x'))
    expect(neither.exitCode).toBe(2)
  })

  it('delete refuses without --yes and without a terminal, and deletes with --yes', async () => {
    const added = (await runCli(KeysAdd, keys('--name', 'gone'))).result!
    const refused = await runCli(KeysDelete, keys('gone'))
    expect(refused.error?.message).toBe(`not deleting ${added.address}: there is no terminal to confirm on; pass --yes to confirm`)
    expect(refused.exitCode).toBe(1)
    await expect(stat(added.file)).resolves.toBeDefined()
    const deleted = await runCli(KeysDelete, keys(added.address.toLowerCase(), '--yes', '--json'))
    expect(jsonOf(deleted)).toEqual({ name: 'gone', address: added.address, file: added.file })
    expect((await readdir(join(home, 'keystore'))).filter((f) => f.startsWith('UTC--'))).toEqual([])
    expect(jsonOf(await runCli(KeysList, keys('--json')))).toEqual([])
  })

  it('change-password takes the new passphrase from NODECTL_NEW_PASSWORD or --new-password-file', async () => {
    await runCli(KeysImport, keys(DEV_KEY, '--name', 'x'))
    const noNew = await runCli(KeysChangePassword, keys('x'))
    expect(noNew.error?.message).toBe(
      `no passphrase: there is no terminal to prompt on; give --new-password-file FILE or set ${NEW_PASSWORD_ENV}`,
    )
    process.env[NEW_PASSWORD_ENV] = 'second'
    const changed = await runCli(KeysChangePassword, keys('x', '--json'))
    expect(jsonOf(changed)).toMatchObject({ name: 'x', address: DEV_ADDRESS })
    await expect(decryptKeystoreJson(await readFile(changed.result!.file, 'utf8'), PASS)).rejects.toThrow()
    delete process.env[NEW_PASSWORD_ENV]
    const third = await runCli(
      KeysChangePassword,
      keys('x', '--password-file', await fileWith('old', 'second'), '--new-password-file', await fileWith('new', 'third')),
    )
    expect(third.error).toBeUndefined()
    expect((await decryptKeystoreJson(await readFile(third.result!.file, 'utf8'), 'third')).privateKey).toBe(DEV_KEY)
    const wrong = await runCli(KeysChangePassword, keys('x', '--new-password-file', await fileWith('n', 'z')))
    expect(wrong.error?.message).toBe('could not decrypt key with given password')
  })

  it('uses --keystore-dir instead of <home>/keystore', async () => {
    const dir = join(tmp, 'elsewhere')
    const added = await runCli(KeysAdd, [...keys('--json'), '--keystore-dir', dir])
    expect(jsonOf<KeyResult>(added).file.startsWith(dir + '/')).toBe(true)
    expect(jsonOf(await runCli(KeysList, keys('--json')))).toEqual([])
    expect(jsonOf(await runCli(KeysList, ['--keystore-dir', dir, '--json']))).toHaveLength(1)
  })
})
