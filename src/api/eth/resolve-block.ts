/**
 * Turning block parameters into heights and blocks. `latest`, `pending`, `safe` and `finalized` are the
 * last committed block (pending state is the latest state, and BFT blocks are final); `earliest` is the
 * oldest block whose history is kept: the genesis block (height 0) until history is pruned, then the
 * history base, as geth ≥ 1.16 resolves it to its history pruning cutoff. The pending *block* is built
 * from the pool by eth-pending.ts.
 */
import { UnknownBlockError } from '../../evm/errors.js'
import type { EvmBlock } from '../../evm/store/views.js'
import type { EthBackend } from './backend.js'
import type { BlockNumberOrTag, BlockSelector } from './block-params.js'

/** The height a number or tag names (may be past the head). */
export function resolveHeight(backend: EthBackend, block: BlockNumberOrTag): number {
  if (typeof block === 'number') return block
  return block === 'earliest' ? backend.historyRetention().blocks.oldestBlock : backend.latestHeight()
}

/** The block a number or tag names; undefined past the head (eth_getBlockByNumber answers null). */
export function getBlockByNumberOrTag(backend: EthBackend, block: BlockNumberOrTag): Promise<EvmBlock | undefined> {
  const height = resolveHeight(backend, block)
  if (height > backend.latestHeight()) return Promise.resolve(undefined)
  return backend.getBlockByNumber(height)
}

/** The block an EIP-1898 selector names, undefined when there is none. */
export function getBlockBySelector(backend: EthBackend, block: BlockSelector): Promise<EvmBlock | undefined> {
  return typeof block === 'object' ? backend.getBlockByHash(block.hash) : getBlockByNumberOrTag(backend, block)
}

/**
 * The height whose post-state a state query reads, with geth's errors: `header not found` past the
 * head, `header for hash not found` for an unknown hash. `requireCanonical` needs no check: the chain
 * has no forks, every known block is canonical.
 */
export async function resolveStateHeight(backend: EthBackend, block: BlockSelector): Promise<number> {
  if (typeof block !== 'object') return stateHeight(backend, block)
  const found = await backend.getBlockByHash(block.hash)
  if (found === undefined) throw new UnknownBlockError('header for hash not found')
  return found.number
}

/** {@link resolveStateHeight} of a number or tag, which needs no lookup. */
export function stateHeight(backend: EthBackend, block: BlockNumberOrTag): number {
  const height = resolveHeight(backend, block)
  if (height > backend.latestHeight()) throw new UnknownBlockError()
  return height
}
