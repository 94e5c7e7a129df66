/**
 * `nodectl keys export <name|address>`: the account's v3 key file (`--keystore`, to stdout or a new
 * `--out` file), or with `--unsafe-raw` its unencrypted private key, after a warning and a confirmation.
 */
import { open, rm, type FileHandle } from 'node:fs/promises'
import { Flags } from '@oclif/core'
import { accountArgs, describeAccount, KeystoreCommand, keyResultOf, type KeyResult } from '../../cli/keystore-command.js'
import { EXIT_FAILURE } from '../../cli/failure.js'
import { withSpinner } from '../../cli/spinner.js'
import { wipe } from '../../crypto/index.js'
import { serializeKeyFile, type KeyFileV3 } from '../../keystore/key-file.js'
import { bytesToHex } from '../../primitives/hex.js'

/** An exported key file: owner read/write only, as the key store's own files. */
const EXPORT_FILE_MODE = 0o600

/** What `keys export` reports: the key file (`--keystore`) or the raw key (`--unsafe-raw`). */
export type KeyExportResult = (KeyResult & { keyFile: KeyFileV3; out: string | null }) | (KeyResult & { privateKey: string })

export default class KeysExport extends KeystoreCommand {
  static override summary = 'Export an account: its v3 key file, or (unsafe) its raw private key.'
  static override description =
    "With --keystore, prints the account's Web3 Secret Storage v3 file (encrypted; geth, ethers, MetaMask and Foundry import it with " +
    'its passphrase), or writes it to --out, a new file created with mode 0600 (an existing file is never overwritten); no passphrase ' +
    'is needed. With --unsafe-raw, prints the unencrypted private key in hex after a warning and a confirmation (--yes skips it), ' +
    'once the passphrase opens the file: anyone who sees it controls the account.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> alice --keystore --out ./alice.json',
    '<%= config.bin %> <%= command.id %> alice --keystore > alice.json',
    '<%= config.bin %> <%= command.id %> 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 --unsafe-raw',
  ]
  static override args = accountArgs
  static override flags = {
    keystore: Flags.boolean({ summary: 'Export the encrypted v3 key file.', exactlyOne: ['keystore', 'unsafe-raw'] }),
    out: Flags.string({ summary: 'Write the key file to this new file instead of stdout.', dependsOn: ['keystore'] }),
    'unsafe-raw': Flags.boolean({
      summary: 'Print the unencrypted private key (needs the passphrase and a confirmation).',
      exactlyOne: ['keystore', 'unsafe-raw'],
    }),
    yes: Flags.boolean({ char: 'y', summary: 'With --unsafe-raw: print the key without asking for a confirmation.' }),
  }

  async run(): Promise<KeyExportResult> {
    const { args, flags } = await this.parse(KeysExport)
    const store = this.openKeyStore(flags)
    const info = await store.find(args.account)
    const account = keyResultOf(info)
    if (flags.keystore) {
      const keyFile = await store.readKeyFile(info)
      const text = serializeKeyFile(keyFile)
      if (flags.out !== undefined) {
        await this.writeNewFile(flags.out, text)
        this.log(`Wrote the key file of ${describeAccount(account)} to ${flags.out}`)
      } else this.log(text)
      return { ...account, keyFile, out: flags.out ?? null }
    }
    this.warnUser(
      `this prints the unencrypted private key of ${account.address}: anyone who sees it (screen, terminal scrollback, logs) controls the account`,
    )
    await this.confirmOrStop(
      flags.yes,
      `Print the private key of ${describeAccount(account)}?`,
      `not printing the private key of ${account.address}`,
    )
    const passphrase = await this.passphrase(flags, `Passphrase of ${account.address}`)
    const { privateKey } = await withSpinner('Decrypting the key', () => store.decrypt(account.address, passphrase))
    const hex = bytesToHex(privateKey)
    wipe(privateKey)
    this.log(hex)
    return { ...account, privateKey: hex }
  }

  /** Creates `path` (mode 0600) with `text`, refusing an existing file. */
  private async writeNewFile(path: string, text: string): Promise<void> {
    let handle: FileHandle
    try {
      handle = await open(path, 'wx', EXPORT_FILE_MODE)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'EEXIST') this.error(`--out ${path} already exists; not overwriting it`, { exit: EXIT_FAILURE })
      this.error(`cannot create --out ${path}: ${code ?? (err as Error).message}`, { exit: EXIT_FAILURE })
    }
    try {
      await handle.writeFile(text + '\n', 'utf8')
      await handle.sync()
    } catch (err) {
      await handle.close()
      await rm(path, { force: true })
      throw err
    }
    await handle.close()
  }
}
