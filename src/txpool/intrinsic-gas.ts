/**
 * Intrinsic gas of a pooled transaction: the gas charged before any code runs, which its gas limit
 * must at least cover. The rule itself (geth `core.IntrinsicGas`, Cancun) lives in evm/.
 */
import { intrinsicGas } from '../evm/txs/intrinsic-gas.js'
import type { DecodedTx } from '../evm/txs/tx.js'

/** The access list as ethereumjs holds it: `[address, storageKeys[]]` pairs. */
type AccessListBytes = ReadonlyArray<readonly [Uint8Array, readonly Uint8Array[]]>

/** The calldata (or init code) of a decoded transaction. */
export function getTxData(tx: DecodedTx): Uint8Array {
  return tx.tx.data
}

/** Gas charged before execution: base, calldata, access list and (for creations) init code words. */
export function computeIntrinsicGas(tx: DecodedTx): bigint {
  const accessList = (tx.tx as { accessList?: AccessListBytes }).accessList ?? []
  return intrinsicGas(
    getTxData(tx),
    tx.to === undefined,
    accessList.map(([, storageKeys]) => ({ storageKeys })),
  )
}
