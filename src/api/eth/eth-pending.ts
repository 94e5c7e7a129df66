/**
 * The `pending` block and header lookups:
 * - the pending block (eth_getBlockByNumber / eth_getHeaderByNumber with tag `pending`): number =
 *   latest + 1, parentHash = the latest hash, transactions = the pool's proposal order, not executed
 *   (evm/pending-block.ts says which fields that leaves at their empty values); `hash`, `nonce`
 *   and `miner` null, as geth nulls them for its pending block; full transactions are shown as pending
 *   ones (null location fields), as eth_getTransactionByHash shows them;
 * - eth_getHeaderByNumber / eth_getHeaderByHash: the block without its `transactions` and `withdrawals` (the same shape
 *   as a newHeads notification); null when there is no such block;
 * - eth_getPendingTransactions: the pool's executable transactions, by sender then nonce.
 */
import type { EvmBlock } from '../../evm/store/views.js'
import { toQuantity } from '../../primitives/quantity.js'
import { hash } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { blockNumberOrTag } from './block-params.js'
import { formatBlock, formatTransaction, type BlockJson } from './format.js'
import { getBlockByNumberOrTag } from './resolve-block.js'

/** A pending block: geth nulls the fields only the sealed block has. */
export type PendingBlockJson = Omit<BlockJson, 'hash' | 'nonce' | 'miner'> & { hash: null; nonce: null; miner: null }

export type HeaderJson = Omit<BlockJson, 'transactions' | 'withdrawals'>
export type PendingHeaderJson = Omit<PendingBlockJson, 'transactions' | 'withdrawals'>

/** The pending block as eth_getBlockByNumber("pending", fullTx) shows it. */
export async function renderPendingBlock(backend: EthBackend, fullTx: boolean): Promise<PendingBlockJson> {
  const { block, transactions } = await backend.getPendingBlock()
  const json = formatBlock(block)
  if (fullTx) json.transactions = transactions.map((tx) => formatTransaction(tx))
  return { ...json, hash: null, nonce: null, miner: null }
}

/** The number of transactions the pending block holds (eth_getBlockTransactionCountByNumber("pending")). */
export async function countPendingTransactions(backend: EthBackend): Promise<string> {
  return toQuantity((await backend.getPendingBlock()).transactions.length)
}

function toHeader<T extends { transactions: unknown; withdrawals: unknown }>(block: T): Omit<T, 'transactions' | 'withdrawals'> {
  const { transactions: _transactions, withdrawals: _withdrawals, ...header } = block
  return header
}

const renderHeader = (block: EvmBlock | undefined): HeaderJson | null => (block === undefined ? null : toHeader(formatBlock(block)))

export function createEthPendingMethods(backend: EthBackend): MethodTable {
  return [
    defineMethod('eth_getHeaderByNumber', [required(blockNumberOrTag)], async ([at]): Promise<HeaderJson | PendingHeaderJson | null> => {
      if (at === 'pending') return toHeader(await renderPendingBlock(backend, false))
      return renderHeader(await getBlockByNumberOrTag(backend, at))
    }),
    defineMethod('eth_getHeaderByHash', [required(hash)], async ([blockHash]) => renderHeader(await backend.getBlockByHash(blockHash))),
    defineMethod('eth_getPendingTransactions', [], () => backend.txPoolContent().pending.map((tx) => formatTransaction(tx))),
  ]
}
