/** `nodectl keys change-password <name|address>`: re-encrypts a key under a new passphrase (geth `account update`). */
import { Flags } from '@oclif/core'
import { accountArgs, describeAccount, KeystoreCommand, keyResultOf, type KeyResult } from '../../cli/keystore-command.js'
import { isInteractive, NEW_PASSWORD_ENV, readPassphrase } from '../../cli/passphrase.js'
import { withSpinner } from '../../cli/spinner.js'
import { wipe } from '../../crypto/index.js'

export default class KeysChangePassword extends KeystoreCommand {
  static override summary = 'Change the passphrase of an account.'
  static override description =
    `Decrypts the key with its current passphrase (--password-file, $NODECTL_PASSWORD or a hidden prompt) and replaces its file atomically with one encrypted under the new passphrase (--new-password-file, $${NEW_PASSWORD_ENV} or a hidden prompt typed twice), at this store's strength (scrypt n=262144, or n=4096 with --light-kdf). A file imported with keys import-keystore gets this store's strength this way. The address and the file name stay the same.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> alice',
    '<%= config.bin %> <%= command.id %> 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 --password-file ./old.txt --new-password-file ' +
      './new.txt --json',
  ]
  static override args = accountArgs
  static override flags = {
    'new-password-file': Flags.string({
      summary: `File whose first line is the new passphrase [default: $${NEW_PASSWORD_ENV}, else a hidden prompt typed twice].`,
    }),
  }

  async run(): Promise<KeyResult> {
    const { args, flags } = await this.parse(KeysChangePassword)
    const store = this.openKeyStore(flags)
    const account = await store.find(args.account)
    const oldPassphrase = await this.passphrase(flags, `Current passphrase of ${account.address}`)
    const newSource = {
      file: flags['new-password-file'],
      envVar: NEW_PASSWORD_ENV,
      fileFlag: '--new-password-file',
      message: 'New passphrase',
      confirm: true,
    }
    if (newSource.file === undefined && process.env[NEW_PASSWORD_ENV] === undefined && isInteractive()) {
      // The new one is typed at a prompt: check the old one first, so a typo is not found after typing the new one twice.
      const { privateKey } = await withSpinner('Checking the passphrase', () => store.decrypt(account.address, oldPassphrase))
      wipe(privateKey)
    }
    const newPassphrase = await readPassphrase(newSource)
    const changed = await withSpinner('Re-encrypting the key', () => store.changePassphrase(account.address, oldPassphrase, newPassphrase))
    const result = keyResultOf(changed)
    this.log(`Changed the passphrase of ${describeAccount(result)}`)
    this.log(`  file ${result.file}`)
    return result
  }
}
