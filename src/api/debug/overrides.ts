/**
 * geth's `stateOverrides` (override.StateOverride: address → {nonce, code, balance, state, stateDiff})
 * and `blockOverrides` (override.BlockOverrides) as codecs. Field errors read as Go's decoder;
 * `movePrecompileToAddress` is refused (nodectl does not move precompiles), and `state` together with
 * `stateDiff` is left for the application to refuse with geth's message. Block overrides accept geth's
 * current names and the older ones (`feeRecipient`/`coinbase`, `baseFeePerGas`/`baseFee`,
 * `prevRandao`/`random`); `difficulty` and `blobBaseFee` are accepted and have no effect (no PoW, no
 * blob transactions).
 */
import type { AccountOverride, BlockOverrides, StateOverride, StorageEntry } from '../../chain/evm/call-overrides.js'
import { DecodeError, address, data, hash, jsonKind, quantity, uint64, type Codec } from '../../rpc/codecs.js'

const ACCOUNT = 'OverrideAccount'
const BLOCK = 'BlockOverrides'

function objectOf(value: unknown, goType: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DecodeError(jsonKind(value), goType)
  return value as Record<string, unknown>
}

function field<T>(obj: Record<string, unknown>, struct: string, name: string, codec: Codec<T>): T | undefined {
  const value = obj[name]
  if (value === undefined || value === null) return undefined
  try {
    return codec(value)
  } catch (err) {
    throw err instanceof DecodeError ? err.inField(struct, name) : err
  }
}

/** A map key as Go's TextUnmarshaler reads it (`0x` required, exact length). */
function mapKey<T>(text: string, codec: Codec<T>): T {
  try {
    return codec(text)
  } catch (err) {
    throw err instanceof DecodeError ? new DecodeError(err.reason) : err
  }
}

/** `map[common.Hash]common.Hash`. */
const storage: Codec<StorageEntry[]> = (value) => {
  const obj = objectOf(value, 'map[common.Hash]common.Hash')
  return Object.entries(obj).map(([slot, v]) => ({ slot: mapKey(slot, hash), value: hash(v) }))
}

function accountOverride(value: unknown): AccountOverride {
  const obj = value === null ? {} : objectOf(value, 'override.OverrideAccount')
  if (obj.movePrecompileToAddress !== undefined && obj.movePrecompileToAddress !== null) throw new DecodeError('movePrecompileToAddress is not supported')
  const account: AccountOverride = {}
  const nonce = field(obj, ACCOUNT, 'nonce', uint64)
  if (nonce !== undefined) account.nonce = nonce
  const code = field(obj, ACCOUNT, 'code', data)
  if (code !== undefined) account.code = code
  const balance = field(obj, ACCOUNT, 'balance', quantity)
  if (balance !== undefined) account.balance = balance
  const state = field(obj, ACCOUNT, 'state', storage)
  if (state !== undefined) account.state = state
  const stateDiff = field(obj, ACCOUNT, 'stateDiff', storage)
  if (stateDiff !== undefined) account.stateDiff = stateDiff
  return account
}

/** geth `override.StateOverride`: `{"0xaddress": {balance?, nonce?, code?, state?, stateDiff?}}`. */
export const stateOverrides: Codec<StateOverride[]> = (value) => {
  const obj = objectOf(value, 'override.StateOverride')
  return Object.entries(obj).map(([key, account]) => ({ address: mapKey(key, address), account: accountOverride(account) }))
}

/** The first of `names` present in `obj`, decoded. */
function either<T>(obj: Record<string, unknown>, names: readonly string[], codec: Codec<T>): T | undefined {
  for (const name of names) {
    const v = field(obj, BLOCK, name, codec)
    if (v !== undefined) return v
  }
  return undefined
}

/** geth `override.BlockOverrides`. */
export const blockOverrides: Codec<BlockOverrides> = (value) => {
  const obj = objectOf(value, 'override.BlockOverrides')
  field(obj, BLOCK, 'difficulty', quantity)
  field(obj, BLOCK, 'blobBaseFee', quantity)
  const out: BlockOverrides = {}
  const number = field(obj, BLOCK, 'number', quantity)
  if (number !== undefined) out.number = number
  const time = field(obj, BLOCK, 'time', uint64)
  if (time !== undefined) out.time = time
  const gasLimit = field(obj, BLOCK, 'gasLimit', uint64)
  if (gasLimit !== undefined) out.gasLimit = gasLimit
  const coinbase = either(obj, ['feeRecipient', 'coinbase'], address)
  if (coinbase !== undefined) out.coinbase = coinbase
  const baseFee = either(obj, ['baseFeePerGas', 'baseFee'], quantity)
  if (baseFee !== undefined) out.baseFee = baseFee
  const random = either(obj, ['prevRandao', 'random'], hash)
  if (random !== undefined) out.random = random
  return out
}
