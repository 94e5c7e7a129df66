/**
 * genesis.json as a node reads it: every field but `app_state.evm.accounts`, which stays in the file.
 * A million funded accounts are over 200 MB of JSON, and JSON.parse makes some 850 MB of objects of
 * them, while only InitChain, once in a chain's life, needs them: it reads them account by account
 * (genesis-accounts.ts). A restart reads the file once, skipping the accounts without building them.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { utf8ToBytes } from '../primitives/hex.js'
import { ConfigError } from '../utils/errors.js'
import { JsonCursor, JsonSyntaxError } from '../utils/json-cursor.js'
import { decodeGenesis } from './decode-genesis.js'
import type { ByteRange, GenesisDoc } from './genesis-doc.js'

const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b

/** A member read by a custom reader and left out of the parsed object. */
const LEFT_OUT: unique symbol = Symbol('left out')

type MemberReader = () => Promise<unknown>

/** Opens genesis.json, or throws the ConfigError `loadGenesis` gives. */
export async function openGenesisFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r')
  } catch (err) {
    throw cannotRead(path, err)
  }
}

/** The ConfigError of a genesis.json that cannot be read. */
export function cannotRead(path: string, err: unknown): ConfigError {
  const code = (err as NodeJS.ErrnoException).code
  return new ConfigError(
    'genesis.json',
    code === 'ENOENT' ? `not found at ${path}: run "nodectl init <moniker>" first` : `cannot read ${path}: ${(err as Error).message}`,
  )
}

/**
 * Reads and validates genesis.json but `app_state.evm.accounts`, whose place in the file the returned
 * document's `source` holds. Every problem is a ConfigError naming `genesis.json` and the field; the
 * accounts are checked as InitChain reads them.
 */
export async function loadNodeGenesis(path: string): Promise<GenesisDoc> {
  const file = await openGenesisFile(path)
  try {
    const size = (await file.stat()).size
    const cursor = JsonCursor.fromFile(file, 0, size)
    let appState: ByteRange | undefined
    let accounts: ByteRange | undefined
    const readAccounts: MemberReader = async () => {
      if ((await cursor.read(() => cursor.peek())) !== OPEN_BRACKET) return cursor.read(() => cursor.value())
      const [start, end] = await cursor.skipLarge()
      accounts = { start, end }
      return LEFT_OUT
    }
    const readEvm = objectReader(cursor, (key) => (key === 'accounts' ? readAccounts : undefined))
    const readAppState: MemberReader = async () => {
      await cursor.read(() => cursor.peek())
      const start = cursor.offset
      const value = await objectReader(cursor, (key) => (key === 'evm' ? readEvm : undefined))()
      appState = { start, end: cursor.offset }
      return value
    }
    const json = await objectReader(cursor, (key) => (key === 'app_state' ? readAppState : undefined))()
    const doc = decodeGenesis(json)
    if (appState && accounts) doc.source = { path, size, appState, accounts }
    return doc
  } catch (err) {
    throw err instanceof JsonSyntaxError ? malformed(err) : err
  } finally {
    await file.close()
  }
}

/**
 * A reader of an object value whose members `special` may read themselves (returning LEFT_OUT to leave
 * one out); any other value, an object included, is parsed whole.
 */
function objectReader(cursor: JsonCursor, special: (key: string) => MemberReader | undefined): MemberReader {
  return async () => {
    if ((await cursor.read(() => cursor.peek())) !== OPEN_BRACE) return cursor.read(() => cursor.value())
    await cursor.read(() => cursor.expect(OPEN_BRACE, "'{'"))
    const out: Record<string, unknown> = {}
    if ((await cursor.read(() => cursor.peek())) === CLOSE_BRACE) {
      await cursor.read(() => cursor.expect(CLOSE_BRACE, "'}'"))
      return out
    }
    do {
      const key = await cursor.read(() => cursor.key())
      const reader = special(key)
      const value = reader ? await reader() : await cursor.read(() => cursor.value())
      if (value !== LEFT_OUT) out[key] = value
    } while (await cursor.read(() => cursor.separator(CLOSE_BRACE)))
    return out
  }
}

/**
 * genesis.json's `app_state` as JSON text, as InitChain carries it: the file's own bytes when the
 * accounts were left there (read now, synchronously: only an application that reads the request's
 * app_state asks, once in a chain's life), else the parsed value encoded again.
 */
export function readAppStateBytes(doc: GenesisDoc): Uint8Array {
  const source = doc.source
  if (!source) return utf8ToBytes(JSON.stringify(doc.appState))
  const { start, end } = source.appState
  const bytes = Buffer.allocUnsafe(end - start)
  const fd = openSync(source.path, 'r')
  try {
    if (fstatSync(fd).size !== source.size) throw changedSince(source.path)
    for (let done = 0; done < bytes.length; ) {
      const got = readSync(fd, bytes, done, bytes.length - done, start + done)
      if (got === 0) throw changedSince(source.path)
      done += got
    }
  } finally {
    closeSync(fd)
  }
  return bytes
}

/** The error of a genesis.json changed after the node read it. */
export function changedSince(path: string): ConfigError {
  return new ConfigError('genesis.json', `${path} changed since the node read it; restart the node`)
}

/** The ConfigError of a genesis.json that is not JSON. */
export function malformed(err: JsonSyntaxError): ConfigError {
  return new ConfigError('genesis.json', `malformed JSON: ${err.message}`)
}
