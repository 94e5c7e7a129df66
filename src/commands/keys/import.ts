/**
 * `nodectl keys import [HEX] [--key-file FILE]`: a raw private key into the key store (geth
 * `account import`). The key comes from the argument (with a warning: shells keep it in their history
 * and other users see it in the process list), a file, or a hidden prompt; it is never printed.
 */
import { readFile } from 'node:fs/promises'
import { Args, Flags } from '@oclif/core'
import { KeystoreCommand, keyResultOf, type KeyResult } from '../../cli/keystore-command.js'
import { EXIT_FAILURE } from '../../cli/failure.js'
import { isInteractive, promptSecret } from '../../cli/passphrase.js'
import { withSpinner } from '../../cli/spinner.js'
import { isValidPrivateKey, privateKeyToAddress, wipe } from '../../crypto/index.js'
import { KeyStoreError } from '../../keystore/key-store.js'
import { toChecksumAddress } from '../../primitives/address.js'
import { hexToBytes } from '../../primitives/hex.js'

/** A private key as typed: 64 hex digits, 0x optional. */
const PRIVATE_KEY_HEX = /^(0x)?[0-9a-fA-F]{64}$/

export default class KeysImport extends KeystoreCommand {
  static override summary = 'Import a raw private key into the key store.'
  static override description =
    'Encrypts a hex private key (64 hex digits, 0x optional) under a new passphrase (a hidden prompt typed twice, or --password-file ' +
    '/ $NODECTL_PASSWORD) into a v3 key file in <home>/keystore. The key is read from the argument, from --key-file (its first line), ' +
    'or from a hidden prompt when neither is given. Prefer the file or the prompt: a key on the command line stays in the shell ' +
    'history and is visible in the process list. An address already in the key store is refused.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --name alice',
    '<%= config.bin %> <%= command.id %> --key-file ./alice.key --name alice --password-file ./pass.txt',
    'NODECTL_PASSWORD=dev <%= config.bin %> <%= command.id %> 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80 ' +
      '--name dev0 --light-kdf',
  ]
  static override args = {
    key: Args.string({ description: 'The private key in hex (visible in shell history: prefer --key-file or the prompt).' }),
  }
  static override flags = {
    name: Flags.string({ summary: 'A label for the key, usable wherever an address is (letters, digits, _ . @ -).' }),
    'key-file': Flags.string({ summary: 'File whose first line is the private key in hex.' }),
  }

  async run(): Promise<KeyResult> {
    const { args, flags } = await this.parse(KeysImport)
    if (args.key !== undefined && flags['key-file'] !== undefined)
      this.error('give the key as the argument or with --key-file, not both', { exit: 2 })
    if (args.key !== undefined)
      this.warnUser(
        'a private key given as an argument is visible in your shell history and in the process list; prefer --key-file or the prompt',
      )
    const key = parsePrivateKey(await this.readKeyText(args.key, flags['key-file']))
    try {
      const store = this.openKeyStore(flags)
      await store.checkNew(toChecksumAddress(privateKeyToAddress(key)), flags.name)
      const passphrase = await this.passphrase(flags, 'Passphrase to encrypt the key', true)
      const account = await withSpinner('Encrypting the key', () => store.importKey(key, passphrase, { name: flags.name }))
      const result = keyResultOf(account)
      this.reportAccount('Imported', result)
      return result
    } finally {
      wipe(key)
    }
  }

  /** The key's text from the argument, the file, or a hidden prompt (never waited on without a terminal). */
  private async readKeyText(arg: string | undefined, file: string | undefined): Promise<string> {
    if (arg !== undefined) return arg
    if (file !== undefined) {
      try {
        return (await readFile(file, 'utf8')).split(/\r?\n/, 1)[0] ?? ''
      } catch (err) {
        this.error(`cannot read --key-file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
          exit: EXIT_FAILURE,
        })
      }
    }
    if (!isInteractive())
      this.error('no private key: there is no terminal to prompt on; give it with --key-file FILE or as the argument', {
        exit: EXIT_FAILURE,
      })
    return promptSecret('Private key (hex)')
  }
}

/** The key's bytes; the message never repeats the input, which may be a key with a typo. */
function parsePrivateKey(text: string): Uint8Array {
  const trimmed = text.trim()
  if (!PRIVATE_KEY_HEX.test(trimmed)) throw new KeyStoreError('invalid private key: want 64 hex digits (0x optional)')
  const key = hexToBytes(trimmed.startsWith('0x') ? trimmed : `0x${trimmed}`)
  if (!isValidPrivateKey(key)) {
    wipe(key)
    throw new KeyStoreError('invalid private key: not a valid secp256k1 scalar (zero or not below the curve order)')
  }
  return key
}
