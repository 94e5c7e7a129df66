/**
 * The `pending` block (eth_getBlockByNumber("pending")): what this node would propose next, built from
 * the pool's proposal order without executing it. Executing it would run every pooled transaction a
 * second time for a block that is only a preview (and again at every request), so the fields only an
 * execution yields keep the values of an unexecuted block: `stateRoot` is the parent's (state reads
 * at `pending` see the latest state too), `receiptsRoot` the empty trie, `logsBloom` empty, `gasUsed` 0.
 * `hash` is not known before the consensus block exists: the API shows it as null, as geth does.
 */
import { BLOOM_BYTES } from './store/bloom.js'
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from './store/ordered-trie.js'
import type { DecodedTx } from './txs/tx.js'
import type { EvmBlock } from './store/views.js'

const ZERO_HASH = new Uint8Array(32)

export interface PendingBlockInput {
  /** The latest committed block. */
  parent: EvmBlock
  /** The pool's executable transactions in proposal order, within the block gas limit. */
  txs: readonly DecodedTx[]
  gasLimit: bigint
  /** Base fee of the next block. */
  baseFee: bigint
  /** Unix seconds; the block's time never precedes its parent's. */
  now: number
  /** This node's fee recipient (the API hides it, as geth hides the pending block's miner). */
  coinbase: Uint8Array
}

/** The next block as the pool would fill it (see the file comment for the fields left unexecuted). */
export function createPendingEvmBlock(p: PendingBlockInput): EvmBlock {
  return {
    number: p.parent.number + 1,
    hash: ZERO_HASH,
    cometHash: undefined,
    parentHash: p.parent.hash,
    stateRoot: p.parent.stateRoot,
    transactionsRoot: orderedTrieRoot(p.txs.map((tx) => tx.raw)),
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(BLOOM_BYTES),
    miner: p.coinbase,
    gasLimit: p.gasLimit,
    gasUsed: 0n,
    baseFeePerGas: p.baseFee,
    timestamp: Math.max(p.parent.timestamp, p.now),
    size: p.txs.reduce((n, tx) => n + tx.raw.length, 0),
    extraData: new Uint8Array(0),
    mixHash: ZERO_HASH,
    transactions: p.txs.map((tx) => tx.hash),
  }
}
