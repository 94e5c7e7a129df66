/**
 * geth's `stateOverrides` (override.StateOverride: address → {nonce, code, balance, state, stateDiff})
 * and `blockOverrides` (override.BlockOverrides) as codecs. Field errors read as Go's decoder;
 * `movePrecompileToAddress` is refused (nodectl does not move precompiles), and `state` together with
 * `stateDiff` is left for the application to refuse with geth's message. Block overrides accept geth's
 * current names and the older ones (`feeRecipient`/`coinbase`, `baseFeePerGas`/`baseFee`,
 * `prevRandao`/`random`); `difficulty` and `blobBaseFee` are accepted and have no effect (no PoW, no
 * blob transactions).
 */
import type { AccountOverride, BlockOverrides, StateOverride, StorageEntry } from '../../evm/calls/call-overrides.js'
import { DecodeError, address, data, hash, objectOf, quantity, structField, uint64, type Codec } from '../../rpc/codecs.js'

const ACCOUNT = 'OverrideAccount'
const BLOCK = 'BlockOverrides'

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
  if (obj.movePrecompileToAddress !== undefined && obj.movePrecompileToAddress !== null)
    throw new DecodeError('movePrecompileToAddress is not supported')
  return {
    nonce: structField(obj, ACCOUNT, 'nonce', uint64),
    code: structField(obj, ACCOUNT, 'code', data),
    balance: structField(obj, ACCOUNT, 'balance', quantity),
    state: structField(obj, ACCOUNT, 'state', storage),
    stateDiff: structField(obj, ACCOUNT, 'stateDiff', storage),
  }
}

/** geth `override.StateOverride`: `{"0xaddress": {balance?, nonce?, code?, state?, stateDiff?}}`. */
export const stateOverrides: Codec<StateOverride[]> = (value) => {
  const obj = objectOf(value, 'override.StateOverride')
  return Object.entries(obj).map(([key, account]) => ({ address: mapKey(key, address), account: accountOverride(account) }))
}

/** The first of `names` present in `obj`, decoded. */
function either<T>(obj: Record<string, unknown>, names: readonly string[], codec: Codec<T>): T | undefined {
  for (const name of names) {
    const v = structField(obj, BLOCK, name, codec)
    if (v !== undefined) return v
  }
  return undefined
}

/** geth `override.BlockOverrides`. */
export const blockOverrides: Codec<BlockOverrides> = (value) => {
  const obj = objectOf(value, 'override.BlockOverrides')
  structField(obj, BLOCK, 'difficulty', quantity)
  structField(obj, BLOCK, 'blobBaseFee', quantity)
  return {
    number: structField(obj, BLOCK, 'number', quantity),
    time: structField(obj, BLOCK, 'time', uint64),
    gasLimit: structField(obj, BLOCK, 'gasLimit', uint64),
    coinbase: either(obj, ['feeRecipient', 'coinbase'], address),
    baseFee: either(obj, ['baseFeePerGas', 'baseFee'], quantity),
    random: either(obj, ['prevRandao', 'random'], hash),
  }
}
