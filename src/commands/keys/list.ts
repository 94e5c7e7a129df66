/** `nodectl keys list`: the accounts of the key store (geth `account list`). */
import { KeystoreCommand, keyResultOf, type KeyResult } from '../../cli/keystore-command.js'
import { isTerminal, listTable } from '../../cli/render.js'

export default class KeysList extends KeystoreCommand {
  static override summary = 'List the accounts of the key store.'
  static override description =
    'One row per key file of <home>/keystore (or --keystore-dir), oldest first: name, EIP-55 address, file. Files written by geth, ' +
    'ethers or Foundry into the folder are listed too. With --json, an array of {name, address, file} (name null when the key has ' +
    'none). Needs no passphrase.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --home ./node0 --json']

  async run(): Promise<KeyResult[]> {
    const { flags } = await this.parse(KeysList)
    const store = this.openKeyStore(flags)
    const keys = (await store.list()).map(keyResultOf)
    // Into a pipe an empty list is no line at all; the note goes to stderr.
    if (keys.length === 0) isTerminal() ? this.log(`No keys in ${store.dir}`) : this.logToStderr(`No keys in ${store.dir}`)
    else
      this.log(
        listTable(
          ['name', 'address', 'file'],
          keys.map((k) => [k.name ?? '', k.address, k.file]),
        ),
      )
    return keys
  }
}
