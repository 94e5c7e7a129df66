/**
 * Reading the fields of a stored raw transaction without building an ethereumjs tx object (no Common
 * copy, no signature recovery: the sender is stored next to it). Serves eth_getTransactionByHash.
 * Layouts (EIP-2718): legacy RLP[nonce, gasPrice, gas, to, value, data, v, r, s];
 * 0x01 ‖ RLP[chainId, nonce, gasPrice, gas, to, value, data, accessList, yParity, r, s] (EIP-2930);
 * 0x02 ‖ RLP[chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gas, to, value, data, accessList,
 * yParity, r, s] (EIP-1559); 0x04 ‖ the same with authorizationList after accessList, each item
 * [chainId, address, nonce, yParity, r, s] (EIP-7702, a dev chain's).
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigint } from '../../primitives/hex.js'
import type { EvmAccessListItem, EvmAuthorization, EvmTxType } from '../store/views.js'

export interface RawTxFields {
  type: EvmTxType
  chainId: bigint | undefined
  nonce: bigint
  /** Legacy/2930 gas price; for 1559 the fee cap. */
  gasPrice: bigint
  maxFeePerGas: bigint | undefined
  maxPriorityFeePerGas: bigint | undefined
  gas: bigint
  to: Uint8Array | undefined
  value: bigint
  input: Uint8Array
  accessList: EvmAccessListItem[] | undefined
  authorizationList: EvmAuthorization[] | undefined
  v: bigint
  r: bigint
  s: bigint
}

type Nested = Uint8Array | Nested[]

function bytes(x: Nested | undefined): Uint8Array {
  if (!(x instanceof Uint8Array)) throw new Error('malformed stored transaction')
  return x
}

function num(x: Nested | undefined): bigint {
  return bytesToBigint(bytes(x))
}

function accessList(x: Nested | undefined): EvmAccessListItem[] {
  if (!Array.isArray(x)) throw new Error('malformed stored transaction')
  return x.map((item) => {
    if (!Array.isArray(item) || !Array.isArray(item[1])) throw new Error('malformed stored transaction')
    return { address: bytes(item[0]), storageKeys: item[1].map(bytes) }
  })
}

function authorizationList(x: Nested | undefined): EvmAuthorization[] {
  if (!Array.isArray(x)) throw new Error('malformed stored transaction')
  return x.map((item) => {
    if (!Array.isArray(item)) throw new Error('malformed stored transaction')
    return { chainId: num(item[0]), address: bytes(item[1]), nonce: num(item[2]), yParity: num(item[3]), r: num(item[4]), s: num(item[5]) }
  })
}

/** EIP-2718: a typed transaction starts with its type byte (0x00–0x7f); a legacy one starts an RLP list (type 0). */
export function rawTxType(raw: Uint8Array): number {
  return raw[0]! <= 0x7f ? raw[0]! : 0
}

/** Decodes the fields of a raw (already validated) transaction. */
export function parseRawTx(raw: Uint8Array): RawTxFields {
  const type = rawTxType(raw)
  if (type === 3 || type > 4) throw new Error(`unsupported stored transaction type ${type}`)
  const f = RLP.decode(type === 0 ? raw : raw.subarray(1)) as Nested[]
  if (type === 0) {
    const v = num(f[6])
    const to = bytes(f[3])
    return {
      type: 0,
      chainId: v >= 35n ? (v - 35n) / 2n : undefined,
      nonce: num(f[0]),
      gasPrice: num(f[1]),
      maxFeePerGas: undefined,
      maxPriorityFeePerGas: undefined,
      gas: num(f[2]),
      to: to.length === 0 ? undefined : to,
      value: num(f[4]),
      input: bytes(f[5]),
      accessList: undefined,
      authorizationList: undefined,
      v,
      r: num(f[7]),
      s: num(f[8]),
    }
  }
  const dyn = type === 1 ? 0 : 1
  // A set-code transaction's authorization list comes between the access list and the signature.
  const sig = type === 4 ? 1 : 0
  const to = bytes(f[4 + dyn])
  const maxFee = num(f[2 + dyn])
  return {
    type: type as 1 | 2 | 4,
    chainId: num(f[0]),
    nonce: num(f[1]),
    gasPrice: maxFee,
    maxFeePerGas: dyn === 1 ? maxFee : undefined,
    maxPriorityFeePerGas: dyn === 1 ? num(f[2]) : undefined,
    gas: num(f[3 + dyn]),
    to: to.length === 0 ? undefined : to,
    value: num(f[5 + dyn]),
    input: bytes(f[6 + dyn]),
    accessList: accessList(f[7 + dyn]),
    authorizationList: type === 4 ? authorizationList(f[8 + dyn]) : undefined,
    v: num(f[8 + dyn + sig]),
    r: num(f[9 + dyn + sig]),
    s: num(f[10 + dyn + sig]),
  }
}
