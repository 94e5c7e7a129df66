/**
 * Intrinsic gas of a transaction under Cancun rules, as geth's `core.IntrinsicGas`: the gas charged
 * before any code runs, which the gas limit must at least cover.
 */
import type { DecodedTx } from '../chain/evm/tx.js'

/** Yellow Paper G_transaction: every transaction. */
export const TX_GAS = 21000n
/** G_transaction + G_txcreate (Homestead): a contract creation. */
export const TX_GAS_CONTRACT_CREATION = 53000n
/** EIP-2028: a zero byte of calldata. */
export const TX_DATA_ZERO_GAS = 4n
/** EIP-2028: a non-zero byte of calldata. */
export const TX_DATA_NON_ZERO_GAS = 16n
/** EIP-2930: each address of the access list. */
export const TX_ACCESS_LIST_ADDRESS_GAS = 2400n
/** EIP-2930: each storage key of the access list. */
export const TX_ACCESS_LIST_STORAGE_KEY_GAS = 1900n
/** EIP-3860: each 32-byte word of init code. */
export const INIT_CODE_WORD_GAS = 2n

/** The access list as ethereumjs holds it: `[address, storageKeys[]]` pairs. */
type AccessListBytes = ReadonlyArray<readonly [Uint8Array, readonly Uint8Array[]]>

/** The calldata (or init code) of a decoded transaction. */
export function getTxData(tx: DecodedTx): Uint8Array {
  return tx.tx.data
}

/** Gas charged before execution: base, calldata, access list and (for creations) init code words. */
export function computeIntrinsicGas(tx: DecodedTx): bigint {
  const data = getTxData(tx)
  const creation = tx.to === undefined
  let gas = creation ? TX_GAS_CONTRACT_CREATION : TX_GAS
  let nonZero = 0
  for (let i = 0; i < data.length; i++) if (data[i] !== 0) nonZero++
  gas += BigInt(nonZero) * TX_DATA_NON_ZERO_GAS + BigInt(data.length - nonZero) * TX_DATA_ZERO_GAS
  if (creation) gas += BigInt(Math.ceil(data.length / 32)) * INIT_CODE_WORD_GAS
  const accessList = (tx.tx as { accessList?: AccessListBytes }).accessList
  if (accessList) {
    let keys = 0
    for (const [, storageKeys] of accessList) keys += storageKeys.length
    gas += BigInt(accessList.length) * TX_ACCESS_LIST_ADDRESS_GAS + BigInt(keys) * TX_ACCESS_LIST_STORAGE_KEY_GAS
  }
  return gas
}
