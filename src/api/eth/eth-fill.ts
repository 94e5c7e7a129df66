/**
 * eth_fillTransaction, as geth's `FillTransaction`: the arguments are filled as eth_sendTransaction
 * fills them (tx-defaults.ts: the pool's nonce, the estimated gas, fees, chain id, and the type they
 * imply) and handed back unsigned, for the caller to sign and send:
 * - `raw`: the transaction encoded with an empty signature (v = r = s = 0), as geth encodes an unsigned
 *   transaction — not the payload a signer hashes;
 * - `tx`: that transaction as eth_signTransaction shows its own (zero `v`, `r`, `s`; `hash` the
 *   Keccak-256 of `raw`; `gasPrice` the fee cap of a fee-market transaction, as the spec asks).
 * `from` may be left out: it is then the zero address, as in geth, whose nonce and estimate are used.
 * No key is needed, so the method is served whatever accounts the node holds.
 */
import { keccak256 } from '../../crypto/index.js'
import { toPendingEvmTx } from '../../evm/store/evm-records.js'
import { createUnsignedTx } from '../../evm/txs/unsigned-tx.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { callArgs } from './call-args.js'
import { encodeData, formatTransaction } from './format.js'
import type { EthApiOptions } from './options.js'
import { fillTransaction } from './tx-defaults.js'

/** The sender of arguments without `from` (geth `TransactionArgs.from()`). */
const ZERO_ADDRESS = new Uint8Array(20)

export function createEthFillMethods(backend: EthBackend, options: EthApiOptions): MethodTable {
  const execution = { gasCap: options.gasCap, timeout: options.evmTimeout }
  return [
    defineMethod('eth_fillTransaction', [required(callArgs)], async ([args]) => {
      const from = args.from ?? ZERO_ADDRESS
      const raw = createUnsignedTx(await fillTransaction(backend, { ...args, from }, execution)).serializeUnsigned()
      return { raw: encodeData(raw), tx: formatTransaction(toPendingEvmTx(raw, keccak256(raw), from)) }
    }),
  ]
}
