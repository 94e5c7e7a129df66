/**
 * `app_state.evm.accounts` read account by account, from the parsed document or from genesis.json
 * where a node's document left it (genesis-file.ts). Each account's `storage` object is passed entry
 * by entry, so a contract with a million genesis slots never sits in memory as one object. The values
 * are JSON values as JSON.parse gives them; evm/genesis.ts checks and converts them.
 */
import { JsonCursor, JsonSyntaxError, NEED_MORE } from '../utils/json-cursor.js'
import { changedSince, malformed, openGenesisFile } from './genesis-file.js'
import type { GenesisDoc } from './genesis-doc.js'

/** What reads the accounts: `slot` for each storage entry of an account, then `account` for the account. */
export interface GenesisAccountsVisitor {
  /**
   * An entry of account `index`'s `storage` object, in file order, before `account`; `address` is the
   * account's `address` field when it came before `storage` (else undefined). When absent, storage
   * objects are skipped unread.
   */
  slot?(index: number, key: string, value: unknown, address: unknown): void | Promise<void>
  /** Account `index`: the array element, without `storage` when that was an object (its entries came through `slot`). */
  account(index: number, value: unknown): void | Promise<void>
  /** Asked after each account: true stops the reading there. */
  done?(): boolean
}

/**
 * Reads the accounts of `doc` in order; a node's document reads them from its genesis.json,
 * `windowBytes` at a time (default 4 MiB; tests take a few bytes, to cross every token).
 */
export async function visitGenesisAccounts(doc: GenesisDoc, visitor: GenesisAccountsVisitor, windowBytes?: number): Promise<void> {
  const range = doc.source?.accounts
  if (!doc.source || !range) return visitParsed(doc, visitor)
  const file = await openGenesisFile(doc.source.path)
  try {
    if ((await file.stat()).size !== doc.source.size) throw changedSince(doc.source.path)
    await new AccountStream(JsonCursor.fromFile(file, range.start, range.end, windowBytes), visitor).run()
  } catch (err) {
    throw err instanceof JsonSyntaxError ? malformed(err) : err
  } finally {
    await file.close()
  }
}

/** The balances of `addresses` in the genesis (lower-case address → wei); it stops reading once all are found. */
export async function readGenesisBalances(doc: GenesisDoc, addresses: readonly string[]): Promise<Map<string, bigint>> {
  const wanted = new Set(addresses.map((a) => a.toLowerCase()))
  const found = new Map<string, bigint>()
  await visitGenesisAccounts(doc, {
    account(_index, value) {
      const a = value as { address?: unknown; balance?: unknown } | null
      if (typeof a?.address !== 'string' || typeof a.balance !== 'string' || !/^[0-9]+$/.test(a.balance)) return
      const key = a.address.toLowerCase()
      if (wanted.has(key)) found.set(key, BigInt(a.balance))
    },
    done: () => found.size === wanted.size,
  })
  return found
}

async function visitParsed(doc: GenesisDoc, visitor: GenesisAccountsVisitor): Promise<void> {
  const accounts = (doc.appState.evm as { accounts?: unknown } | undefined)?.accounts
  if (!Array.isArray(accounts)) return
  for (let i = 0; i < accounts.length; i++) {
    let value: unknown = accounts[i]
    const storage = (value as { storage?: unknown } | null)?.storage
    if (typeof storage === 'object' && storage !== null && !Array.isArray(storage)) {
      const { storage: _, ...rest } = value as Record<string, unknown>
      // As a file is read: the address is known at the slots when it comes before them.
      const keys = Object.keys(value as object)
      const at = keys.indexOf('address')
      const address = at >= 0 && at < keys.indexOf('storage') ? rest.address : undefined
      if (visitor.slot) for (const [key, v] of Object.entries(storage)) await visitor.slot(i, key, v, address)
      value = rest
    }
    await visitor.account(i, value)
    if (visitor.done?.()) return
  }
}

const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** Where the stream is: before what it reads next. */
const At = {
  firstElement: 0,
  element: 1,
  firstMember: 2,
  member: 3,
  afterMember: 4,
  firstSlot: 5,
  slot: 6,
  afterElement: 7,
  end: 8,
} as const
type At = (typeof At)[keyof typeof At]

/** What a step asks of the loop: go on (undefined), stop, or wait for the visitor. */
type StepResult = undefined | 'end' | Promise<void>

/**
 * The accounts array read in small synchronous steps over the cursor's window, each taking effect only
 * once all it reads is there (the window is refilled between steps, not per value: an `await` per
 * value would cost seconds over a million accounts).
 */
class AccountStream {
  private at: At = At.firstElement
  private index = 0
  private fields: Record<string, unknown> = {}
  private readonly step = (): StepResult => this.next()

  constructor(
    private readonly cursor: JsonCursor,
    private readonly visitor: GenesisAccountsVisitor,
  ) {}

  async run(): Promise<void> {
    const cursor = this.cursor
    await cursor.read(() => cursor.expect(OPEN_BRACKET, "'['"))
    for (;;) {
      const result = cursor.low ? NEED_MORE : cursor.attempt(this.step)
      if (result === 'end') return
      if (result === NEED_MORE) await cursor.fill()
      else if (result) {
        await result
        if (this.visitor.done?.()) return
      }
    }
  }

  private next(): StepResult {
    const c = this.cursor
    switch (this.at) {
      case At.firstElement:
        if (c.peek() === CLOSE_BRACKET) return this.end(CLOSE_BRACKET)
        this.at = At.element
        return undefined
      case At.element:
        if (c.peek() !== OPEN_BRACE) {
          const value = c.value()
          this.at = At.afterElement
          return this.emit(value)
        }
        c.expect(OPEN_BRACE, "'{'")
        this.fields = {}
        this.at = At.firstMember
        return undefined
      case At.firstMember:
        if (c.peek() === CLOSE_BRACE) {
          c.expect(CLOSE_BRACE, "'}'")
          this.at = At.afterElement
          return this.emit(this.fields)
        }
        this.at = At.member
        return undefined
      case At.member: {
        const key = c.key()
        if (key === 'storage' && c.peek() === OPEN_BRACE) {
          if (!this.visitor.slot) return this.skipStorage()
          c.expect(OPEN_BRACE, "'{'")
          this.at = At.firstSlot
          return undefined
        }
        this.fields[key] = c.value()
        this.at = At.afterMember
        return undefined
      }
      case At.afterMember:
        if (c.separator(CLOSE_BRACE)) {
          this.at = At.member
          return undefined
        }
        this.at = At.afterElement
        return this.emit(this.fields)
      case At.firstSlot:
        if (c.peek() === CLOSE_BRACE) {
          c.expect(CLOSE_BRACE, "'}'")
          this.at = At.afterMember
        } else this.at = At.slot
        return undefined
      case At.slot: {
        const key = c.key()
        const value = c.value()
        if (!c.separator(CLOSE_BRACE)) this.at = At.afterMember
        return this.visitor.slot!(this.index, key, value, this.fields.address) ?? undefined
      }
      case At.afterElement:
        if (c.separator(CLOSE_BRACKET)) {
          this.index++
          this.at = At.element
          return undefined
        }
        this.at = At.end
        return 'end'
      case At.end:
        return 'end'
    }
  }

  private end(close: number): 'end' {
    this.cursor.expect(close, "']'")
    this.at = At.end
    return 'end'
  }

  /** Hands the account to the visitor; stops when it is done. */
  private emit(value: unknown): StepResult {
    const result = this.visitor.account(this.index, value)
    if (result instanceof Promise) return result
    return this.visitor.done?.() ? 'end' : undefined
  }

  /** Skips a storage object nobody reads (it may be far bigger than the window). */
  private async skipStorage(): Promise<void> {
    await this.cursor.skipLarge()
    this.at = At.afterMember
  }
}
