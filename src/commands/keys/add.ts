/** `nodectl keys add [--name N]`: a new random key, encrypted into the key store (geth `account new`). */
import { Flags } from '@oclif/core'
import { KeystoreCommand, keyResultOf, type KeyResult } from '../../cli/keystore-command.js'
import { withSpinner } from '../../cli/spinner.js'

export default class KeysAdd extends KeystoreCommand {
  static override summary = 'Create a new random key in the key store.'
  static override description =
    'Generates a secp256k1 key, encrypts it under a new passphrase (a hidden prompt typed twice, or --password-file / ' +
    '$NODECTL_PASSWORD) and writes it as a Web3 Secret Storage v3 file, UTC--<time>--<address>, mode 0600, in <home>/keystore. The ' +
    'file opens in geth, ethers and Foundry. A running node sees the key at once. Keep the passphrase: without it the key cannot be ' +
    'recovered.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --name alice',
    'NODECTL_PASSWORD=dev <%= config.bin %> <%= command.id %> --home ./node0 --light-kdf --json',
  ]
  static override flags = {
    name: Flags.string({ summary: 'A label for the key, usable wherever an address is (letters, digits, _ . @ -).' }),
  }

  async run(): Promise<KeyResult> {
    const { flags } = await this.parse(KeysAdd)
    const store = this.openKeyStore(flags)
    await store.checkNew(undefined, flags.name)
    const passphrase = await this.passphrase(flags, 'Passphrase for the new key', true)
    const account = await withSpinner('Encrypting the new key', () => store.create(passphrase, { name: flags.name }))
    const result = keyResultOf(account)
    this.reportAccount('Created', result)
    return result
  }
}
