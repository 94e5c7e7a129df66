/**
 * `nodectl keys import-keystore FILE`: a v3 key file from geth, ethers, MetaMask or Foundry. The file
 * is kept as it is (its encryption, passphrase and KDF strength), so the same passphrase opens it here
 * and wherever it came from; `keys change-password` re-encrypts it under this store's strength.
 */
import { readFile } from 'node:fs/promises'
import { Args, Flags } from '@oclif/core'
import { KeystoreCommand, keyResultOf, type KeyResult } from '../../cli/keystore-command.js'
import { EXIT_FAILURE } from '../../cli/failure.js'
import { withSpinner } from '../../cli/spinner.js'
import { parseKeyFile } from '../../keystore/key-file.js'
import { toChecksumAddress } from '../../primitives/address.js'

export default class KeysImportKeystore extends KeystoreCommand {
  static override summary = 'Import a v3 key file (geth, ethers, MetaMask, Foundry) into the key store.'
  static override description =
    "Checks that the file's own passphrase (--password-file, $NODECTL_PASSWORD or a hidden prompt) opens it and that it holds the key " +
    'of its address, then copies it into <home>/keystore as UTC--<time>--<address>, mode 0600. The key is NOT re-encrypted: the file ' +
    'is kept as is, with its passphrase and key derivation (scrypt or pbkdf2, whatever strength it was written with), so it still ' +
    'opens with the same passphrase here and in the tool it came from; run `keys change-password` to re-encrypt it under a new ' +
    "passphrase with this store's strength. The original file is left untouched. An address already in the key store is refused."
  static override examples = [
    '<%= config.bin %> <%= command.id %> ' +
      '~/.ethereum/keystore/UTC--2024-01-01T00-00-00.000000000Z--f39fd6e51aad88f6f4ce6ab8827279cfffb92266 --name alice',
    '<%= config.bin %> <%= command.id %> ./ethers-wallet.json --password-file ./pass.txt --json',
  ]
  static override args = {
    file: Args.string({ description: 'The v3 key file (JSON) to import.', required: true }),
  }
  static override flags = {
    name: Flags.string({ summary: 'A label for the key, usable wherever an address is (letters, digits, _ . @ -).' }),
  }

  async run(): Promise<KeyResult> {
    const { args, flags } = await this.parse(KeysImportKeystore)
    let text: string
    try {
      text = await readFile(args.file, 'utf8')
    } catch (err) {
      this.error(`cannot read ${args.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { exit: EXIT_FAILURE })
    }
    const parsed = parseKeyFile(text) // a file that is not v3 is refused before any prompt
    const store = this.openKeyStore(flags)
    await store.checkNew(parsed.address === '' ? undefined : toChecksumAddress(parsed.address), flags.name)
    const passphrase = await this.passphrase(flags, `Passphrase of ${args.file}`)
    const account = await withSpinner('Checking the passphrase', () => store.importKeyFile(text, passphrase, { name: flags.name }))
    const result = keyResultOf(account)
    this.reportAccount('Imported', result, ' (kept as is: it opens with its own passphrase)')
    return result
  }
}
