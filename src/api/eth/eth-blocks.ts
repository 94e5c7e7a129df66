/**
 * eth methods reading blocks: by number/hash, transaction counts, receipts of a block, uncles. A block
 * that does not exist (past the head, unknown hash) answers null (docs/decisions.md), never an error.
 */
import type { EvmBlock } from '../../evm/store/views.js'
import { toQuantity } from '../../primitives/quantity.js'
import { bool, hash, uint } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { blockNumberOrTag, blockSelector } from './block-params.js'
import { countPendingTransactions, renderPendingBlock } from './eth-pending.js'
import { formatBlock, formatReceipt, type BlockJson } from './format.js'
import { getBlockByNumberOrTag, getBlockBySelector } from './resolve-block.js'

async function renderBlock(backend: EthBackend, block: EvmBlock | undefined, fullTx: boolean): Promise<BlockJson | null> {
  if (block === undefined) return null
  return formatBlock(block, fullTx ? await backend.getBlockTransactions(block) : undefined)
}

const countTxs = (block: EvmBlock | undefined): string | null => (block === undefined ? null : toQuantity(block.transactions.length))
/** Uncle count: BFT blocks have none; null when the block does not exist (geth). */
const countUncles = (block: EvmBlock | undefined): string | null => (block === undefined ? null : '0x0')

export function createEthBlockMethods(backend: EthBackend): MethodTable {
  return [
    defineMethod('eth_getBlockByNumber', [required(blockNumberOrTag), required(bool)], async ([at, fullTx]) =>
      at === 'pending' ? renderPendingBlock(backend, fullTx) : renderBlock(backend, await getBlockByNumberOrTag(backend, at), fullTx),
    ),
    defineMethod('eth_getBlockByHash', [required(hash), required(bool)], async ([blockHash, fullTx]) =>
      renderBlock(backend, await backend.getBlockByHash(blockHash), fullTx),
    ),
    defineMethod('eth_getBlockTransactionCountByNumber', [required(blockNumberOrTag)], async ([at]) =>
      at === 'pending' ? countPendingTransactions(backend) : countTxs(await getBlockByNumberOrTag(backend, at)),
    ),
    defineMethod('eth_getBlockTransactionCountByHash', [required(hash)], async ([blockHash]) =>
      countTxs(await backend.getBlockByHash(blockHash)),
    ),
    defineMethod('eth_getBlockReceipts', [required(blockSelector)], async ([at]) => {
      const block = await getBlockBySelector(backend, at)
      if (block === undefined) return null
      return (await backend.getBlockReceipts(block)).map(formatReceipt)
    }),
    defineMethod('eth_getUncleCountByBlockHash', [required(hash)], async ([blockHash]) =>
      countUncles(await backend.getBlockByHash(blockHash)),
    ),
    defineMethod('eth_getUncleCountByBlockNumber', [required(blockNumberOrTag)], async ([at]) =>
      countUncles(await getBlockByNumberOrTag(backend, at)),
    ),
    defineMethod('eth_getUncleByBlockHashAndIndex', [required(hash), required(uint)], () => null),
    defineMethod('eth_getUncleByBlockNumberAndIndex', [required(blockNumberOrTag), required(uint)], () => null),
  ]
}
