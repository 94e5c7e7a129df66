/** Reading config.toml / app.toml into plain tables, with errors that name the file and line. */
import { readFile } from 'node:fs/promises'
import { TomlError, parse } from 'smol-toml'
import { ConfigError } from '../utils/errors.js'

/** A parsed TOML document. */
export type TomlTable = Record<string, unknown>

/**
 * Parses TOML text; a syntax error becomes ConfigError(`<label>`, `malformed TOML at line N: <reason>`).
 * Integers beyond 2^53 come back as bigint.
 */
export function parseToml(text: string, label: string): TomlTable {
  try {
    return parse(text, { integersAsBigInt: 'asNeeded' }) as TomlTable
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '')
      throw new ConfigError(label, `malformed TOML at line ${err.line}: ${reason}`)
    }
    throw new ConfigError(label, `malformed TOML: ${(err as Error).message}`)
  }
}

/** Reads and parses a TOML file; a missing file gives `undefined` (every key then keeps its default). */
export async function readTomlFile(path: string, label: string): Promise<TomlTable | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new ConfigError(label, `cannot read ${path}: ${(err as Error).message}`)
  }
  return parseToml(text, label)
}

/** True for a TOML table (not an array, not a date). */
export function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype
}
