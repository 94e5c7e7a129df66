/** `nodectl keys add [NAME]`: a new random key, encrypted into the key store (geth `account new`, `evmosd keys add`). */
import { Args, Flags } from '@oclif/core'
import { EXIT_USAGE } from '../../cli/failure.js'
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
    '<%= config.bin %> <%= command.id %> alice',
    'NODECTL_PASSWORD=dev <%= config.bin %> <%= command.id %> --home ./node0 --light-kdf --json',
  ]
  static override args = {
    name: Args.string({
      description: 'A label for the key, usable wherever an address is (letters, digits, _ . @ -); as evmosd keys add.',
    }),
  }
  static override flags = {
    name: Flags.string({ summary: 'The label, as a flag (the argument is the same).' }),
  }

  async run(): Promise<KeyResult> {
    const { args, flags } = await this.parse(KeysAdd)
    if (args.name !== undefined && flags.name !== undefined && args.name !== flags.name)
      this.error(`two names given: "${args.name}" and --name "${flags.name}"`, { exit: EXIT_USAGE })
    const name = args.name ?? flags.name
    const store = this.openKeyStore(flags)
    await store.checkNew(undefined, name)
    const passphrase = await this.passphrase(flags, 'Passphrase for the new key', true)
    const account = await withSpinner('Encrypting the new key', () => store.create(passphrase, { name }))
    const result = keyResultOf(account)
    this.reportAccount('Created', result)
    return result
  }
}
