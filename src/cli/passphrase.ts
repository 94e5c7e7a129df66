/**
 * Where the key commands get passphrases: `--password-file FILE` (its first line, as geth's
 * `--password`), else the environment (`NODECTL_PASSWORD`), else a hidden prompt on the terminal,
 * typed twice for a new passphrase. Without a terminal and without a source the command fails at once,
 * naming both sources: it never waits on a prompt nobody can answer. Passphrases are never printed.
 */
import { readFile } from 'node:fs/promises'

/** The environment variable holding the passphrase of non-interactive runs. */
export const PASSWORD_ENV = 'NODECTL_PASSWORD'
/** The environment variable holding the new passphrase of `keys change-password`. */
export const NEW_PASSWORD_ENV = 'NODECTL_NEW_PASSWORD'

/** A passphrase (or other secret) could not be had: no source, an unreadable file, or two prompts that differ. */
export class PassphraseError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PassphraseError'
  }
}

/** Where one passphrase may come from. */
export interface PassphraseSource {
  /** `--password-file` (or `--new-password-file`). */
  file?: string | undefined
  /** The environment variable to read (default {@link PASSWORD_ENV}). */
  envVar?: string
  /** The process environment (tests pass their own). */
  env?: NodeJS.ProcessEnv
  /** Whether a prompt may be shown (default: stdin and stderr are terminals). */
  interactive?: boolean
  /** The prompt text. */
  message: string
  /** A new passphrase: prompt twice and require both to match (ignored for files and the environment). */
  confirm?: boolean
  /** The flag naming the file, for messages (default `--password-file`). */
  fileFlag?: string
}

/** True when prompts can be answered: stdin and stderr are terminals. */
export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true
}

/** Reads a passphrase from the first available source (see the file comment). */
export async function readPassphrase(source: PassphraseSource): Promise<string> {
  const fileFlag = source.fileFlag ?? '--password-file'
  const envVar = source.envVar ?? PASSWORD_ENV
  if (source.file !== undefined) return readPasswordFile(source.file, fileFlag)
  const fromEnv = (source.env ?? process.env)[envVar]
  if (fromEnv !== undefined) return fromEnv
  if (!(source.interactive ?? isInteractive())) {
    throw new PassphraseError(`no passphrase: there is no terminal to prompt on; give ${fileFlag} FILE or set ${envVar}`)
  }
  const first = await prompt(source.message)
  if (!source.confirm) return first
  const second = await prompt('Repeat the passphrase')
  if (first !== second) throw new PassphraseError('the passphrases do not match; nothing was written')
  return first
}

/** The first line of a password file, without its line ending. */
export async function readPasswordFile(path: string, flag = '--password-file'): Promise<string> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new PassphraseError(`cannot read ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  return text.split(/\r?\n/, 1)[0] ?? ''
}

/** inquirer's prompt writing to stderr (stdout stays for results), loaded only when a terminal asks for it. */
async function promptModule() {
  const { default: inquirer } = await import('inquirer')
  return inquirer.createPromptModule({ output: process.stderr })
}

/** A hidden prompt for a secret (the caller checks {@link isInteractive} first). */
export async function promptSecret(message: string): Promise<string> {
  return prompt(message)
}

/** A hidden prompt that echoes nothing, not even the length (as geth). */
async function prompt(message: string): Promise<string> {
  const ask = await promptModule()
  const { value } = await ask<{ value: string }>([{ type: 'password', name: 'value', message }])
  return value
}

/** Asks a yes/no question (default no); false without a terminal. */
export async function confirmAction(message: string, interactive: boolean = isInteractive()): Promise<boolean> {
  if (!interactive) return false
  const ask = await promptModule()
  const { value } = await ask<{ value: boolean }>([{ type: 'confirm', name: 'value', message, default: false }])
  return value
}
