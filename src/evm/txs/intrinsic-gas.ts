/**
 * Intrinsic gas under Cancun rules (geth `core.IntrinsicGas`): the gas charged before any code runs,
 * which a transaction's gas limit must at least cover. 21,000 per transaction (53,000 for a creation,
 * EIP-2), 4 per zero and 16 per non-zero calldata byte (EIP-2028), 2 per init-code word (EIP-3860),
 * 2,400 per access-list address and 1,900 per storage key (EIP-2930), and on a dev chain 25,000 per
 * authorization of a set-code transaction (EIP-7702's PER_EMPTY_ACCOUNT_COST). The one computation of the node:
 * CheckTx, eth_call / eth_estimateGas and tracing all use it.
 */
import type { DecodedTx } from './tx.js'

export const TX_GAS = 21_000n
const TX_GAS_CREATE = 53_000n
const ZERO_BYTE_GAS = 4n
const NONZERO_BYTE_GAS = 16n
const INITCODE_WORD_GAS = 2n
const ACCESS_LIST_ADDRESS_GAS = 2_400n
const ACCESS_LIST_KEY_GAS = 1_900n
/** EIP-7702 PER_EMPTY_ACCOUNT_COST: charged per authorization (part refunded when the account exists). */
const AUTHORIZATION_GAS = 25_000n

/** Intrinsic gas of a call (`isCreate` false) or creation with this calldata (or init code), access list and authorizations. */
export function intrinsicGas(
  data: Uint8Array,
  isCreate: boolean,
  accessList: readonly { storageKeys: readonly unknown[] }[] = [],
  authorizations = 0,
): bigint {
  let gas = isCreate ? TX_GAS_CREATE : TX_GAS
  let zeros = 0
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
  gas += BigInt(zeros) * ZERO_BYTE_GAS + BigInt(data.length - zeros) * NONZERO_BYTE_GAS
  if (isCreate) gas += BigInt(Math.ceil(data.length / 32)) * INITCODE_WORD_GAS
  for (const item of accessList) gas += ACCESS_LIST_ADDRESS_GAS + BigInt(item.storageKeys.length) * ACCESS_LIST_KEY_GAS
  return gas + BigInt(authorizations) * AUTHORIZATION_GAS
}

/** Intrinsic gas of a decoded transaction. */
export function computeIntrinsicGas(tx: DecodedTx): bigint {
  return intrinsicGas(
    tx.data,
    tx.to === undefined,
    tx.accessList.map(([, storageKeys]) => ({ storageKeys })),
    tx.authorizations,
  )
}
