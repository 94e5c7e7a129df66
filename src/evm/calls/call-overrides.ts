/**
 * geth's call overrides (internal/ethapi/override): `stateOverrides` change accounts of the state a
 * simulated call runs on, `blockOverrides` change the block it sees. Applied to a private state copy
 * only, before the call, "as if they were created in a transaction just before" (override.go).
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address } from '@ethereumjs/util'
import { toChecksumAddress } from '../../primitives/address.js'
import { CallArgsError } from '../errors.js'

/** A 32-byte storage slot and its 32-byte value. */
export interface StorageEntry {
  slot: Uint8Array
  value: Uint8Array
}

/** geth `override.OverrideAccount` (the fields nodectl applies). */
export interface AccountOverride {
  nonce?: bigint
  code?: Uint8Array
  balance?: bigint
  /** Replaces the whole storage. */
  state?: StorageEntry[]
  /** Sets these slots, keeping the others. */
  stateDiff?: StorageEntry[]
}

/** geth `override.StateOverride`: per address. */
export interface StateOverride {
  address: Uint8Array
  account: AccountOverride
}

/**
 * geth `override.BlockOverrides` (the fields nodectl applies): block number, time (Unix seconds), gas
 * limit, fee recipient (`feeRecipient`, older `coinbase`), base fee (`baseFeePerGas`, older `baseFee`),
 * PREVRANDAO (`prevRandao`, older `random`).
 */
export interface BlockOverrides {
  number?: bigint
  time?: bigint
  gasLimit?: bigint
  coinbase?: Uint8Array
  baseFee?: bigint
  random?: Uint8Array
}

/** Applies `overrides` in geth's order per account: nonce, code, balance, state or stateDiff. */
export async function applyStateOverrides(sm: MerkleStateManager, overrides: readonly StateOverride[]): Promise<void> {
  for (const { address: bytes, account: o } of overrides) {
    const address = new Address(bytes)
    if (o.state !== undefined && o.stateDiff !== undefined) {
      throw new CallArgsError(`account ${toChecksumAddress(bytes)} has both 'state' and 'stateDiff'`)
    }
    if (o.nonce !== undefined || o.balance !== undefined || (await sm.getAccount(address)) === undefined) {
      const account = (await sm.getAccount(address)) ?? new Account()
      if (o.nonce !== undefined) account.nonce = o.nonce
      if (o.balance !== undefined) account.balance = o.balance
      await sm.putAccount(address, account)
    }
    if (o.code !== undefined) await sm.putCode(address, o.code)
    if (o.state !== undefined) await sm.clearStorage(address)
    for (const { slot, value } of o.state ?? o.stateDiff ?? []) await sm.putStorage(address, slot, value)
  }
}
