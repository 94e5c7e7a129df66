/**
 * eth methods about transactions: lookups (committed or pending), receipts, and submission. Unknown
 * transactions and receipts answer null; a pending transaction has null location fields and no receipt.
 */
import type { EvmBlock, EvmTx } from '../../evm/store/views.js'
import { data, hash, uint } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { blockNumberOrTag } from './block-params.js'
import { encodeData, formatReceipt, formatTransaction, type TransactionJson } from './format.js'
import { getBlockByNumberOrTag } from './resolve-block.js'

async function txAtIndex(backend: EthBackend, block: EvmBlock | undefined, index: number): Promise<TransactionJson | null> {
  if (block === undefined || index >= block.transactions.length) return null
  const tx = (await backend.getBlockTransactions(block))[index]
  return tx === undefined ? null : formatTransaction(tx, block.timestamp)
}

async function renderTx(backend: EthBackend, tx: EvmTx | undefined): Promise<TransactionJson | null> {
  if (tx === undefined) return null
  if (tx.blockNumber === undefined) return formatTransaction(tx)
  const block = await backend.getBlockByNumber(tx.blockNumber)
  return formatTransaction(tx, block?.timestamp)
}

export function createEthTransactionMethods(backend: EthBackend): MethodTable {
  return [
    defineMethod('eth_getTransactionByHash', [required(hash)], async ([txHash]) => renderTx(backend, await backend.getTransaction(txHash))),
    defineMethod('eth_getTransactionByBlockHashAndIndex', [required(hash), required(uint)], async ([blockHash, index]) =>
      txAtIndex(backend, await backend.getBlockByHash(blockHash), index),
    ),
    defineMethod('eth_getTransactionByBlockNumberAndIndex', [required(blockNumberOrTag), required(uint)], async ([at, index]) =>
      txAtIndex(backend, await getBlockByNumberOrTag(backend, at), index),
    ),
    defineMethod('eth_getTransactionReceipt', [required(hash)], async ([txHash]) => {
      const receipt = await backend.getReceipt(txHash)
      return receipt === undefined ? null : formatReceipt(receipt)
    }),
    defineMethod('eth_sendRawTransaction', [required(data)], async ([raw]) => encodeData(await backend.sendRawTransaction(raw))),
  ]
}
