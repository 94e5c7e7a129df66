/**
 * The EVM part of genesis.json's `app_state` (shared with `config/`), its parser and validator, and the
 * EVM chain id derived from the consensus chain id.
 *
 * ```json
 * {"evm": {"accounts": [{"address": "0x…", "balance": "<decimal wei>", "nonce": "0",
 *                        "code": "0x…"?, "storage": {"0x<slot>": "0x<value>"}?}],
 *          "validator_admin": "0x…"?, "fee_recipients": {"<VALIDATOR ADDRESS UPPER HEX>": "0x…"}?},
 *  "fee_market": {"base_fee": "1000000000", "elasticity_multiplier": 2, "base_fee_change_denominator": 8,
 *                 "min_gas_price": "0", "no_base_fee": false}}
 * ```
 * Errors name the offending field: `app_state.evm.accounts[2].balance: not a decimal integer`.
 */
import { visitGenesisAccounts } from '../config/genesis-accounts.js'
import type { GenesisDoc } from '../config/genesis-doc.js'
import { isHexData } from '../primitives/hex.js'
import { isAddress } from '../primitives/address.js'

/** The JSON shape of one genesis account. */
export interface GenesisAccountJson {
  address: string
  /** Decimal wei. */
  balance: string
  /** Decimal; default "0". */
  nonce?: string | number
  code?: string
  storage?: Record<string, string>
}

/** The JSON shape of `app_state`. */
export interface AppStateJson {
  evm: {
    accounts: GenesisAccountJson[]
    validator_admin?: string
    /** Consensus validator address (upper hex, 40 digits) → EVM address receiving its tips. */
    fee_recipients?: Record<string, string>
  }
  fee_market?: Partial<FeeMarketJson>
}

export interface FeeMarketJson {
  base_fee: string
  elasticity_multiplier: number
  base_fee_change_denominator: number
  min_gas_price: string
  no_base_fee: boolean
}

export interface GenesisAccount {
  address: Uint8Array
  balance: bigint
  nonce: bigint
  code: Uint8Array | undefined
  /** [32-byte slot, value bytes (no leading zeros)] pairs. */
  storage: [Uint8Array, Uint8Array][]
}

/** EIP-1559 parameters of the chain (consensus-critical: every node must use the same). */
export interface FeeMarketParams {
  /** Base fee of the first block, in wei. Default 1 gwei (geth's InitialBaseFee). */
  baseFee: bigint
  /** Gas target = gas limit / elasticity. Default 2 (EIP-1559). */
  elasticityMultiplier: bigint
  /** Max change per block = 1/denominator. Default 8 (EIP-1559). */
  baseFeeChangeDenominator: bigint
  /** Floor of the base fee, in wei. Default 0. */
  minGasPrice: bigint
  /** When true the base fee is always 0 (legacy pricing only). Default false. */
  noBaseFee: boolean
}

/** An account without its storage, which comes before it slot by slot (GenesisAccountSink). */
export type GenesisAccountHeader = Omit<GenesisAccount, 'storage'>

/** What takes the genesis accounts in order: each account's storage slots, then the account. */
export interface GenesisAccountSink {
  /** A slot of the account being read: its 32-byte key and value (no leading zeros, not empty); its address when known already. */
  slot(slot: Uint8Array, value: Uint8Array, address: Uint8Array | undefined): void | Promise<void>
  /** Account number `index` of the genesis, after its slots. */
  account(account: GenesisAccountHeader, index: number): void | Promise<void>
}

/** Reads the genesis accounts into a sink; throws GenesisError. */
export type GenesisAccountReader = (sink: GenesisAccountSink) => Promise<void>

/** The genesis accounts: parsed, or read when InitChain needs them ({@link readGenesisAccounts}). */
export type GenesisAccounts = readonly GenesisAccount[] | GenesisAccountReader

export interface EvmGenesis {
  accounts: GenesisAccounts
  validatorAdmin: Uint8Array | undefined
  /** Upper-hex consensus validator address → EVM fee recipient. */
  feeRecipients: Map<string, Uint8Array>
  feeMarket: FeeMarketParams
}

/** Defaults of `app_state.fee_market` (Evmos feemarket defaults). */
export const defaultFeeMarketJson: FeeMarketJson = {
  base_fee: '1000000000',
  elasticity_multiplier: 2,
  base_fee_change_denominator: 8,
  min_gas_price: '0',
  no_base_fee: false,
}

/** An `app_state` that cannot be used; the message starts with the JSON path of the field. */
export class GenesisError extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`)
    this.name = 'GenesisError'
  }
}

/** Returns the first problem of an `app_state` value (parsed JSON), or undefined when it is valid. */
export function validateAppState(value: unknown): string | undefined {
  try {
    parseAppState(value)
    return undefined
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
}

/** An {@link EvmGenesis} whose accounts were parsed. */
export interface ParsedEvmGenesis extends EvmGenesis {
  accounts: GenesisAccount[]
}

/** Passes `accounts` to `sink` in order: each account's storage slots, then the account. */
export async function feedGenesisAccounts(accounts: GenesisAccounts, sink: GenesisAccountSink): Promise<void> {
  if (typeof accounts === 'function') return accounts(sink)
  for (let i = 0; i < accounts.length; i++) {
    const { storage, ...header } = accounts[i]!
    for (const [slot, value] of storage) await sink.slot(slot, value, header.address)
    await sink.account(header, i)
  }
}

/** A sink passing every slot and account to `a` and to `b`. */
export function bothSinks(a: GenesisAccountSink, b: GenesisAccountSink): GenesisAccountSink {
  const join = (x: void | Promise<void>, y: void | Promise<void>): void | Promise<void> =>
    x || y ? Promise.all([x, y]).then(() => undefined) : undefined
  return {
    slot: (slot, value, address) => join(a.slot(slot, value, address), b.slot(slot, value, address)),
    account: (account, index) => join(a.account(account, index), b.account(account, index)),
  }
}

/**
 * The accounts of a genesis document, read and checked as a sink takes them (from genesis.json when
 * the document left them there): errors are the GenesisErrors of {@link parseAppState}, but a
 * duplicate address, which the sink finds (genesis-trie.ts).
 */
export function readGenesisAccounts(doc: GenesisDoc): GenesisAccountReader {
  return (sink) => {
    let addressText: unknown
    let addressBytes: Uint8Array | undefined
    return visitGenesisAccounts(doc, {
      slot(index, key, value, address) {
        if (address !== addressText) {
          addressText = address
          addressBytes = isAddress(address) ? hexBytes(address) : undefined
        }
        const slot = parseSlot(key, value, `app_state.evm.accounts[${index}]`)
        return slot && sink.slot(slot[0], slot[1], addressBytes)
      },
      account(index, value) {
        return sink.account(parseAccountHeader(value, `app_state.evm.accounts[${index}]`), index)
      },
    })
  }
}

/** Parses `app_state` (JSON text, its bytes, or the parsed value). Throws GenesisError. */
export function parseAppState(input: unknown): ParsedEvmGenesis {
  let value = input
  if (input instanceof Uint8Array) value = new TextDecoder().decode(input)
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : JSON.parse(value)
    } catch (err) {
      throw new GenesisError('app_state', `invalid JSON: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  const root = object(value, 'app_state')
  const evm = root.evm === undefined ? {} : object(root.evm, 'app_state.evm')
  const accountsJson = evm.accounts === undefined ? [] : evm.accounts
  if (!Array.isArray(accountsJson)) throw new GenesisError('app_state.evm.accounts', 'not an array')
  const seen = new Set<string>()
  const accounts = accountsJson.map((a, i) => {
    const acc = parseAccount(a, `app_state.evm.accounts[${i}]`)
    const key = Buffer.from(acc.address).toString('hex')
    if (seen.has(key)) throw new GenesisError(`app_state.evm.accounts[${i}].address`, 'duplicate account')
    seen.add(key)
    return acc
  })
  const validatorAdmin = evm.validator_admin === undefined ? undefined : address(evm.validator_admin, 'app_state.evm.validator_admin')
  const feeRecipients = new Map<string, Uint8Array>()
  if (evm.fee_recipients !== undefined) {
    const map = object(evm.fee_recipients, 'app_state.evm.fee_recipients')
    for (const [validator, recipient] of Object.entries(map)) {
      const field = `app_state.evm.fee_recipients.${validator}`
      if (!/^[0-9A-F]{40}$/.test(validator)) throw new GenesisError(field, 'key must be a validator address in upper-case hex (40 digits)')
      feeRecipients.set(validator, address(recipient, field))
    }
  }
  return { accounts, validatorAdmin, feeRecipients, feeMarket: parseFeeMarket(root.fee_market) }
}

function parseFeeMarket(value: unknown): FeeMarketParams {
  const fm = value === undefined ? {} : object(value, 'app_state.fee_market')
  const get = <K extends keyof FeeMarketJson>(k: K): unknown => (fm[k] === undefined ? defaultFeeMarketJson[k] : fm[k])
  const elasticity = positiveInt(get('elasticity_multiplier'), 'app_state.fee_market.elasticity_multiplier')
  const denominator = positiveInt(get('base_fee_change_denominator'), 'app_state.fee_market.base_fee_change_denominator')
  const noBaseFee = get('no_base_fee')
  if (typeof noBaseFee !== 'boolean') throw new GenesisError('app_state.fee_market.no_base_fee', 'not a boolean')
  return {
    baseFee: decimal(get('base_fee'), 'app_state.fee_market.base_fee'),
    elasticityMultiplier: elasticity,
    baseFeeChangeDenominator: denominator,
    minGasPrice: decimal(get('min_gas_price'), 'app_state.fee_market.min_gas_price'),
    noBaseFee,
  }
}

function parseAccount(value: unknown, path: string): GenesisAccount {
  const a = object(value, path)
  const storage: [Uint8Array, Uint8Array][] = []
  if (a.storage !== undefined) {
    for (const [key, v] of Object.entries(object(a.storage, `${path}.storage`))) {
      const slot = parseSlot(key, v, path)
      if (slot) storage.push(slot)
    }
  }
  return { ...parseAccountHeader(a, path), storage }
}

/** An account's fields but its storage (which must be an object when present). */
function parseAccountHeader(value: unknown, path: string): GenesisAccountHeader {
  const a = object(value, path)
  if (a.storage !== undefined) object(a.storage, `${path}.storage`)
  const code = a.code === undefined ? undefined : data(a.code, `${path}.code`)
  const nonce = decimal(a.nonce ?? '0', `${path}.nonce`)
  if (nonce >= 1n << 64n) throw new GenesisError(`${path}.nonce`, 'does not fit in 64 bits')
  return {
    address: address(a.address, `${path}.address`),
    balance: decimal(a.balance ?? '0', `${path}.balance`),
    nonce,
    code: code && code.length > 0 ? code : undefined,
  }
}

/** A storage entry of the account at `path`: [32-byte slot, value without leading zeros], or undefined for a zero value (no slot). */
function parseSlot(key: string, value: unknown, path: string): [Uint8Array, Uint8Array] | undefined {
  const slotBytes = word(key, () => `${path}.storage.${key}`, 'key')
  const valueBytes = word(value, () => `${path}.storage.${key}`, 'value')
  let start = 0
  while (start < valueBytes.length && valueBytes[start] === 0) start++
  return start < valueBytes.length ? [slotBytes, valueBytes.subarray(start)] : undefined
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GenesisError(path, 'not an object')
  return value as Record<string, unknown>
}

function address(value: unknown, path: string): Uint8Array {
  if (!isAddress(value)) throw new GenesisError(path, 'not a 0x-prefixed 20-byte hex address')
  return hexBytes(value)
}

function data(value: unknown, path: string): Uint8Array {
  if (!isHexData(value)) throw new GenesisError(path, 'not 0x-prefixed hex bytes')
  return hexBytes(value)
}

/** A 32-byte word given as 0x hex of at most 32 bytes (any number of digits), left-padded; `path` is made only for an error. */
function word(value: unknown, path: () => string, what: string): Uint8Array {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value))
    throw new GenesisError(path(), `${what} is not 0x-prefixed hex of at most 32 bytes`)
  return hexBytes(value.length === 66 ? value : `0x${value.slice(2).padStart(64, '0')}`)
}

/**
 * The bytes of `0x` hex already checked by a pattern, decoded natively: the generic hexToBytes checks
 * each digit pair again, which cost seconds over a genesis of a million slots.
 */
function hexBytes(hex: string): Uint8Array {
  const b = Buffer.from(hex.slice(2), 'hex')
  return new Uint8Array(b.buffer, b.byteOffset, b.length)
}

function decimal(value: unknown, path: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]*)$/.test(value)) throw new GenesisError(path, 'not a decimal integer')
  const n = BigInt(value)
  if (n >= 1n << 256n) throw new GenesisError(path, 'does not fit in 256 bits')
  return n
}

function positiveInt(value: unknown, path: string): bigint {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new GenesisError(path, 'not a positive integer')
  return BigInt(value)
}
