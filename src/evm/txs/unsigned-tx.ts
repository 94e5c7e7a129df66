/**
 * Transactions the node signs for its own accounts (eth_sendTransaction, eth_signTransaction,
 * personal_sendTransaction). The type is chosen as geth's `TransactionArgs.ToTransaction`: an
 * authorization list → EIP-7702 (0x4); else fee caps → EIP-1559 (0x2); else an access list → EIP-2930
 * (0x1); else legacy (0x0), always EIP-155-protected. A set-code transaction is built whatever the
 * chain: the node's admission refuses it where EIP-7702 is not active (every chain but a dev chain).
 * The signer is outside: this hands out the digest to sign and turns the signature into the raw bytes.
 */
import { createAccessList2930Tx, createEOACode7702Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx'
import { bigIntToHex, bytesToHex } from '@ethereumjs/util'
import { getCommon, txCommonOf } from '../common.js'
import type { EvmAccessListItem, EvmAuthorization, EvmTxType } from '../store/views.js'

/** Every field of a transaction to sign; a fee field that does not apply to the type is undefined. */
export interface UnsignedTxFields {
  chainId: bigint
  nonce: bigint
  gasLimit: bigint
  /** undefined: contract creation. */
  to: Uint8Array | undefined
  value: bigint
  data: Uint8Array
  accessList: EvmAccessListItem[] | undefined
  /** Legacy and EIP-2930. */
  gasPrice: bigint | undefined
  /** EIP-1559. */
  maxFeePerGas: bigint | undefined
  maxPriorityFeePerGas: bigint | undefined
  /** EIP-7702 (with the EIP-1559 fee caps and a recipient: tx-defaults.ts checks both). */
  authorizationList?: EvmAuthorization[] | undefined
}

/** A transaction waiting for its signature. */
export interface UnsignedTx {
  type: EvmTxType
  /** The digest the sender signs (keccak256 of the type byte ‖ RLP of the unsigned fields; EIP-155 for legacy). */
  signingHash: Uint8Array
  /**
   * The encoding with an empty signature (v = r = s = 0): how geth encodes an unsigned transaction
   * (eth_fillTransaction's `raw`), not the payload that is signed.
   */
  serializeUnsigned(): Uint8Array
  /** The raw signed transaction (what eth_sendRawTransaction takes) for a signature of `signingHash`. */
  serializeSigned(sig: { r: Uint8Array; s: Uint8Array; recovery: number }): Uint8Array
}

export function createUnsignedTx(fields: UnsignedTxFields): UnsignedTx {
  const opts = { common: txCommonOf(getCommon(fields.chainId)) }
  const base = { nonce: fields.nonce, gasLimit: fields.gasLimit, to: fields.to, value: fields.value, data: fields.data }
  const accessList = (fields.accessList ?? []).map((item) => [item.address, item.storageKeys] as [Uint8Array, Uint8Array[]])
  let tx: TypedTransaction
  let legacy = false
  if (fields.authorizationList !== undefined) {
    tx = createEOACode7702Tx(
      {
        ...base,
        chainId: fields.chainId,
        maxFeePerGas: fields.maxFeePerGas ?? 0n,
        maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? 0n,
        accessList,
        authorizationList: fields.authorizationList.map((a) => ({
          chainId: bigIntToHex(a.chainId),
          address: bytesToHex(a.address),
          nonce: bigIntToHex(a.nonce),
          yParity: bigIntToHex(a.yParity),
          r: bigIntToHex(a.r),
          s: bigIntToHex(a.s),
        })),
      },
      { common: txCommonOf(getCommon(fields.chainId, { setCode: true })) },
    )
  } else if (fields.maxFeePerGas !== undefined) {
    tx = createFeeMarket1559Tx(
      {
        ...base,
        chainId: fields.chainId,
        maxFeePerGas: fields.maxFeePerGas,
        maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? 0n,
        accessList,
      },
      opts,
    )
  } else if (fields.accessList !== undefined) {
    tx = createAccessList2930Tx({ ...base, chainId: fields.chainId, gasPrice: fields.gasPrice ?? 0n, accessList }, opts)
  } else {
    tx = createLegacyTx({ ...base, gasPrice: fields.gasPrice ?? 0n }, opts)
    legacy = true
  }
  return {
    type: tx.type as EvmTxType,
    signingHash: tx.getHashedMessageToSign(),
    serializeUnsigned: () => tx.serialize(),
    serializeSigned: ({ r, s, recovery }) => {
      // Legacy: `convertV` turns the recovery id into EIP-155's v = 35 + 2·chainId + recovery.
      const signed = legacy
        ? (tx as ReturnType<typeof createLegacyTx>).addSignature(BigInt(recovery), r, s, true)
        : tx.addSignature(BigInt(recovery), r, s)
      return signed.serialize()
    },
  }
}
