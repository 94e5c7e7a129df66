/**
 * ABCI Query paths of the EVM application, answered at a height (0 = latest):
 * `/evm/balance/<0xaddr>` and `/evm/nonce/<0xaddr>` (big-endian unsigned bytes, empty for 0),
 * `/evm/code/<0xaddr>` (raw code), `/evm/storage/<0xaddr>/<0xslot>` (32-byte value).
 */
import type { QueryRequest, QueryResponse } from '../abci/application.js'
import { isAddress } from '../primitives/address.js'
import { bigintToBytes, hexToBytes } from '../primitives/hex.js'
import { TX_CODESPACE } from './txs/tx-codes.js'

/** The state reads a query needs, at a resolved height. */
export interface QueryState {
  /** The committed height `height` (0 = latest) refers to; throws when unknown. */
  resolveHeight(height: number): Promise<number>
  getAccount(address: Uint8Array, height: number): { nonce: bigint; balance: bigint } | Promise<{ nonce: bigint; balance: bigint }>
  getCode(address: Uint8Array, height: number): Promise<Uint8Array>
  getStorageAt(address: Uint8Array, slot: Uint8Array, height: number): Promise<Uint8Array>
}

const EMPTY = new Uint8Array(0)
/** Result code of a query that cannot be answered (CometBFT leaves codes to the application). */
const QUERY_FAILED = 1

export async function answerQuery(req: QueryRequest, state: QueryState): Promise<QueryResponse> {
  const fail = (log: string): QueryResponse => ({
    code: QUERY_FAILED,
    log,
    info: '',
    index: 0n,
    key: req.data,
    value: EMPTY,
    height: req.height,
    codespace: TX_CODESPACE,
  })
  const parts = req.path.split('/').filter((p) => p !== '')
  if (parts[0] !== 'evm' || parts.length < 3) return fail(`unknown query path: ${req.path}`)
  const [, kind, address, slot] = parts as [string, string, string, string | undefined]
  if (!isAddress(address)) return fail(`invalid address: ${address}`)
  const addr = hexToBytes(address)
  try {
    const h = await state.resolveHeight(req.height)
    let value: Uint8Array
    if (kind === 'balance' && parts.length === 3) value = bigintToBytes((await state.getAccount(addr, h)).balance)
    else if (kind === 'nonce' && parts.length === 3) value = bigintToBytes((await state.getAccount(addr, h)).nonce)
    else if (kind === 'code' && parts.length === 3) value = await state.getCode(addr, h)
    else if (kind === 'storage' && parts.length === 4 && slot !== undefined && /^0x[0-9a-fA-F]{1,64}$/.test(slot)) {
      value = await state.getStorageAt(addr, hexToBytes(slot.slice(2).padStart(64, '0')), h)
    } else return fail(`unknown query path: ${req.path}`)
    return { code: 0, log: '', info: '', index: 0n, key: req.data, value, height: h, codespace: '' }
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err))
  }
}
