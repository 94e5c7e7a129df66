/**
 * Base of the `nodectl keys` commands, which work offline on the key-store folder (a running node
 * shares it and sees their changes): `--home`, `--keystore-dir`, `--light-kdf`, `--password-file` and
 * `--json` (oclif prints what run() returns). Key-store, key-file and passphrase failures are one clear
 * line with exit status 1, or `{"error": {"message"}}` with `--json`. Nothing here prints a passphrase
 * or a private key.
 */
import { Args, Errors, Flags, ux } from '@oclif/core'
import { homePaths, resolveHome } from '../config/home.js'
import { KeyFileFormatError, LIGHT_SCRYPT, STANDARD_SCRYPT, WrongPassphraseError } from '../keystore/key-file.js'
import { KeyStore, KeyStoreError, type KeyInfo } from '../keystore/key-store.js'
import { EXIT_FAILURE } from './failure.js'
import { NodectlCommand } from './nodectl-command.js'
import { confirmAction, isInteractive, PassphraseError, readPassphrase } from './passphrase.js'
import { isTerminal } from './render.js'

/** The flags every `keys` command takes. */
export const keystoreFlags = {
  home: Flags.string({
    summary: 'Node home whose keystore/ folder holds the keys [default: $NODECTL_HOME, else ~/.nodectl].',
    helpGroup: 'KEY STORE',
  }),
  'keystore-dir': Flags.string({ summary: 'Key-store folder, instead of <home>/keystore.', helpGroup: 'KEY STORE' }),
  'light-kdf': Flags.boolean({
    summary: 'Encrypt files written with scrypt n=4096 instead of 262144 (geth --lightkdf): fast, for tests and throw-away keys only.',
    helpGroup: 'KEY STORE',
  }),
  'password-file': Flags.string({
    summary: 'File whose first line is the passphrase [default: $NODECTL_PASSWORD, else a hidden prompt].',
    helpGroup: 'KEY STORE',
  }),
}

/** The argument of the commands that act on one account: its name, or its address in any letter case. */
export const accountArgs = {
  account: Args.string({ description: 'Name or address of the account.', required: true }),
}

/** The parsed values of {@link keystoreFlags}. */
export interface KeystoreFlags {
  home?: string | undefined
  'keystore-dir'?: string | undefined
  'light-kdf': boolean
  'password-file'?: string | undefined
}

/** One account as the commands report it (`name` is null when it has none, so the JSON shape is fixed). */
export interface KeyResult {
  name: string | null
  /** EIP-55 address. */
  address: string
  /** Absolute path of its key file. */
  file: string
}

/** The reported form of a key-store account. */
export function keyResultOf(info: KeyInfo): KeyResult {
  return { name: info.name ?? null, address: info.address, file: info.file }
}

/** `0x…` with its name in parentheses, for human lines. */
export function describeAccount(key: KeyResult): string {
  return key.name === null ? key.address : `${key.address} ("${key.name}")`
}

/** The one line shown for an error of the key store, its files or the passphrase sources; undefined for others. */
export function describeKeystoreError(err: unknown): string | undefined {
  if (
    err instanceof KeyStoreError ||
    err instanceof WrongPassphraseError ||
    err instanceof KeyFileFormatError ||
    err instanceof PassphraseError
  )
    return err.message
  return undefined
}

/** A `nodectl keys` command: see the file comment. */
export abstract class KeystoreCommand extends NodectlCommand {
  static override enableJsonFlag = true
  static override baseFlags = keystoreFlags

  /** The key store chosen by the flags: `--keystore-dir`, else `<home>/keystore`. */
  protected openKeyStore(flags: KeystoreFlags): KeyStore {
    const dir = flags['keystore-dir'] ?? homePaths(resolveHome(flags.home)).keystoreDir
    return new KeyStore({ dir, scrypt: flags['light-kdf'] ? LIGHT_SCRYPT : STANDARD_SCRYPT })
  }

  /** The passphrase from `--password-file`, `$NODECTL_PASSWORD` or a hidden prompt (typed twice when `confirm`). */
  protected passphrase(flags: KeystoreFlags, message: string, confirm = false): Promise<string> {
    return readPassphrase({ file: flags['password-file'], message, confirm })
  }

  /**
   * Reports the account a command created or imported: `<verb> 0x… ("name")` and its file on a terminal,
   * the address alone on a plain line otherwise (`addr=$(nodectl keys add)`); nothing with `--json`.
   */
  protected reportAccount(verb: string, key: KeyResult, note = ''): void {
    if (!isTerminal()) return this.log(key.address)
    this.log(`${verb} ${describeAccount(key)}${note}`)
    this.log(`  file ${key.file}`)
  }

  /** A one-line warning on stderr, shown with `--json` too (stdout keeps the JSON). */
  protected warnUser(line: string): void {
    ux.stderr(`Warning: ${line}`)
  }

  /**
   * Asks `question` on the terminal unless `yes`; without a terminal refuses, naming --yes. A "no"
   * ends the command with `refusal`.
   */
  protected async confirmOrStop(yes: boolean, question: string, refusal: string): Promise<void> {
    if (yes) return
    if (!isInteractive()) this.error(`${refusal}: there is no terminal to confirm on; pass --yes to confirm`, { exit: EXIT_FAILURE })
    if (!(await confirmAction(question, true))) this.error(`${refusal}: not confirmed`, { exit: EXIT_FAILURE })
  }

  /** Key-store errors become one clear line and exit status 1. */
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const line = describeKeystoreError(err)
    return super.catch(line === undefined ? err : new Errors.CLIError(line, { exit: EXIT_FAILURE }))
  }
}
