/**
 * Transactions a development chain executes as sent by an address whose key it does not hold
 * (anvil_impersonateAccount + eth_sendTransaction, eth_sendUnsignedTransaction).
 *
 * They carry a placeholder signature, so they have the raw bytes, hash, fields and receipt of any
 * other transaction of the EVM view: r = the sender's address (left-padded to 32 bytes), s = 1,
 * y-parity 0. The signature does not recover the sender (the dev operation names it); r makes two
 * senders' otherwise equal transactions differ in hash, as Hardhat's placeholder signatures do.
 */
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import type { Common } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import { sha256 } from '../../crypto/index.js'
import { txCommonOf } from '../common.js'
import { decodedTxOf, TxDecodeError, type DecodedTx } from '../txs/tx.js'
import { createUnsignedTx, type UnsignedTxFields } from '../txs/unsigned-tx.js'

/** The raw bytes of `fields` sent by `from`, with the placeholder signature. */
export function encodeImpersonatedTx(from: Uint8Array, fields: UnsignedTxFields): Uint8Array {
  const r = new Uint8Array(32)
  r.set(from, 32 - from.length)
  return createUnsignedTx(fields).serializeSigned({ r, s: Uint8Array.of(1), recovery: 0 })
}

/**
 * The decoded transaction of an impersonated `raw` sent by `from`; `opRaw` is the dev operation that
 * carries it (its SHA-256 is the consensus hash, as for any transaction of a block).
 */
export function decodeImpersonatedTx(from: Uint8Array, raw: Uint8Array, opRaw: Uint8Array, common: Common): DecodedTx {
  let tx: TypedTransaction
  try {
    tx = createTxFromRLP(raw, { common: txCommonOf(common), freeze: false }) as TypedTransaction
  } catch (err) {
    throw new TxDecodeError(`rlp: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (tx.type > 2) throw new TxDecodeError('transaction type not supported')
  const sender = new Address(from)
  tx.getSenderAddress = () => sender
  Object.freeze(tx)
  return decodedTxOf({ raw, tx, from, type: tx.type as 0 | 1 | 2, chainId: common.chainId(), cometHash: sha256(opRaw) })
}
