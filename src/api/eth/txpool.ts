/**
 * The txpool namespace over the real pool, in geth's shapes (internal/ethapi `TxPoolAPI`), not the
 * empty stubs Evmos answers:
 * - txpool_content: `{pending, queued}`, each `{<sender, EIP-55>: {<nonce, decimal>: transaction}}`,
 *   transactions as eth_getTransactionByHash shows a pending one (null location, fee cap as gasPrice);
 * - txpool_contentFrom(address): `{pending, queued}`, each `{<nonce>: transaction}`;
 * - txpool_inspect: like content with one line per transaction,
 *   `<to, EIP-55>: <value> wei + <gas> gas × <gasPrice> wei` (`contract creation: …` without a recipient);
 * - txpool_status: `{pending, queued}` as QUANTITY counts.
 */
import type { EvmTx } from '../../evm/store/views.js'
import { toChecksumAddress } from '../../primitives/address.js'
import { toQuantity } from '../../primitives/quantity.js'
import { address } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend, PoolContent } from './backend.js'
import { formatTransaction, type TransactionJson } from './format.js'

/** Transactions by nonce (decimal text, as geth's `fmt.Sprintf("%d", nonce)`). */
function byNonce<T>(txs: readonly EvmTx[], render: (tx: EvmTx) => T): Record<string, T> {
  const out: Record<string, T> = {}
  for (const tx of txs) out[tx.nonce.toString()] = render(tx)
  return out
}

/** Transactions by sender (EIP-55, as geth's `common.Address.Hex()`), then by nonce. */
function bySender<T>(txs: readonly EvmTx[], render: (tx: EvmTx) => T): Record<string, Record<string, T>> {
  const groups = new Map<string, EvmTx[]>()
  for (const tx of txs) {
    const key = toChecksumAddress(tx.from)
    const group = groups.get(key)
    if (group) group.push(tx)
    else groups.set(key, [tx])
  }
  const out: Record<string, Record<string, T>> = {}
  for (const [sender, group] of groups) out[sender] = byNonce(group, render)
  return out
}

/** geth's inspect line; `gasPrice` is the fee cap of a dynamic-fee transaction (geth `tx.GasPrice()`). */
export function formatInspectLine(tx: EvmTx): string {
  const cost = `${tx.value} wei + ${tx.gas} gas × ${tx.gasPrice} wei`
  return tx.to === undefined ? `contract creation: ${cost}` : `${toChecksumAddress(tx.to)}: ${cost}`
}

const renderTx = (tx: EvmTx): TransactionJson => formatTransaction(tx)

export function createTxPoolMethods(backend: EthBackend): MethodTable {
  const bothBySender = <T>(content: PoolContent, render: (tx: EvmTx) => T) => ({
    pending: bySender(content.pending, render),
    queued: bySender(content.queued, render),
  })
  return [
    defineMethod('txpool_content', [], () => bothBySender(backend.txPoolContent(), renderTx)),
    defineMethod('txpool_contentFrom', [required(address)], ([from]) => {
      const content = backend.txPoolContentFrom(from)
      return { pending: byNonce(content.pending, renderTx), queued: byNonce(content.queued, renderTx) }
    }),
    defineMethod('txpool_inspect', [], () => bothBySender(backend.txPoolContent(), formatInspectLine)),
    defineMethod('txpool_status', [], () => {
      const status = backend.txPoolStatus()
      return { pending: toQuantity(status.pending), queued: toQuantity(status.queued) }
    }),
  ]
}
