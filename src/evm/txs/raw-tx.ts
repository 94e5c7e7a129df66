/**
 * Reading the fields of a stored raw transaction without building an ethereumjs tx object (no Common
 * copy, no signature recovery: the sender is stored next to it). Serves eth_getTransactionByHash.
 * Layouts (EIP-2718): legacy RLP[nonce, gasPrice, gas, to, value, data, v, r, s];
 * 0x01 ‖ RLP[chainId, nonce, gasPrice, gas, to, value, data, accessList, yParity, r, s] (EIP-2930);
 * 0x02 ‖ RLP[chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gas, to, value, data, accessList,
 * yParity, r, s] (EIP-1559).
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigint } from '../../primitives/hex.js'
import type { EvmAccessListItem } from '../store/views.js'

export interface RawTxFields {
  type: 0 | 1 | 2
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

/** EIP-2718: a typed transaction starts with its type byte (0x00–0x7f); a legacy one starts an RLP list (type 0). */
export function rawTxType(raw: Uint8Array): number {
  return raw[0]! <= 0x7f ? raw[0]! : 0
}

/** Decodes the fields of a raw (already validated) transaction. */
export function parseRawTx(raw: Uint8Array): RawTxFields {
  const type = rawTxType(raw)
  if (type > 2) throw new Error(`unsupported stored transaction type ${type}`)
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
      v,
      r: num(f[7]),
      s: num(f[8]),
    }
  }
  const dyn = type === 2 ? 1 : 0
  const to = bytes(f[4 + dyn])
  const maxFee = num(f[2 + dyn])
  return {
    type: type as 1 | 2,
    chainId: num(f[0]),
    nonce: num(f[1]),
    gasPrice: maxFee,
    maxFeePerGas: type === 2 ? maxFee : undefined,
    maxPriorityFeePerGas: type === 2 ? num(f[2]) : undefined,
    gas: num(f[3 + dyn]),
    to: to.length === 0 ? undefined : to,
    value: num(f[5 + dyn]),
    input: bytes(f[6 + dyn]),
    accessList: accessList(f[7 + dyn]),
    v: num(f[8 + dyn]),
    r: num(f[9 + dyn]),
    s: num(f[10 + dyn]),
  }
}
