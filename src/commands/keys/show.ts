/** `nodectl keys show <name|address>`: one account of the key store and how its file is encrypted. */
import { accountArgs, KeystoreCommand, keyResultOf, type KeyResult } from '../../cli/keystore-command.js'
import { keyValueTable } from '../../cli/render.js'

/** What `keys show` reports. */
export interface KeyShowResult extends KeyResult {
  /** The file's key derivation, e.g. `scrypt n=262144 r=8 p=1` or `pbkdf2 c=262144`. */
  kdf: string
  /** The file's UUID (`id`). */
  id: string
}

export default class KeysShow extends KeystoreCommand {
  static override summary = 'Show one account of the key store.'
  static override description =
    'Finds the account by its name or its address (any letter case) and shows its name, EIP-55 address, key file, file id and key ' +
    'derivation. Needs no passphrase and never shows the key.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> alice',
    '<%= config.bin %> <%= command.id %> 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 --json',
  ]
  static override args = accountArgs

  async run(): Promise<KeyShowResult> {
    const { args, flags } = await this.parse(KeysShow)
    const store = this.openKeyStore(flags)
    const account = await store.find(args.account)
    const { id, crypto } = await store.readKeyFile(account)
    const p = crypto.kdfparams
    const kdf = 'n' in p ? `scrypt n=${p.n} r=${p.r} p=${p.p}` : `pbkdf2 c=${p.c}`
    const result: KeyShowResult = { ...keyResultOf(account), kdf, id }
    this.log(
      keyValueTable([
        ['name', result.name ?? ''],
        ['address', result.address],
        ['file', result.file],
        ['id', id],
        ['kdf', kdf],
      ]),
    )
    return result
  }
}
