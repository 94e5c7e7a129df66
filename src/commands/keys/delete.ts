/** `nodectl keys delete <name|address>`: removes an account's key file and its name, after a confirmation. */
import { Flags } from '@oclif/core'
import { accountArgs, describeAccount, KeystoreCommand, keyResultOf, type KeyResult } from '../../cli/keystore-command.js'

export default class KeysDelete extends KeystoreCommand {
  static override summary = 'Delete an account from the key store.'
  static override description =
    'Removes the key file and the name of the account given by name or address (any letter case). Asks for a confirmation on the ' +
    'terminal unless --yes is given; without a terminal and without --yes it refuses. Without a backup of the file (keys export ' +
    '--keystore) or of the private key, the account is lost for good. Needs no passphrase.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> alice',
    '<%= config.bin %> <%= command.id %> 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 --yes --json',
  ]
  static override args = accountArgs
  static override flags = {
    yes: Flags.boolean({ char: 'y', summary: 'Delete without asking for a confirmation.' }),
  }

  async run(): Promise<KeyResult> {
    const { args, flags } = await this.parse(KeysDelete)
    const store = this.openKeyStore(flags)
    const account = keyResultOf(await store.find(args.account))
    await this.confirmOrStop(
      flags.yes,
      `Delete ${describeAccount(account)}? Without a backup its funds are lost for good.`,
      `not deleting ${account.address}`,
    )
    const result = keyResultOf(await store.delete(account.address))
    this.log(`Deleted ${describeAccount(result)}`)
    this.log(`  file ${result.file}`)
    return result
  }
}
