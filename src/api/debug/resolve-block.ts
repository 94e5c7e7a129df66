/**
 * Block parameters of the debug methods, with geth's errors (eth/tracers/api.go `blockByNumber`,
 * `blockByHash`): `block #N not found`, `block 0x… not found`. `latest`, `pending`, `safe` and
 * `finalized` are the head (pending state is the latest state here, BFT blocks are final); `earliest`
 * is the genesis block.
 */
import type { EvmBlock } from '../../evm/store/views.js'
import { bytesToHex } from '../../primitives/hex.js'
import { NodeError } from '../../utils/errors.js'
import type { BlockNumberOrTag, BlockSelector } from '../eth/block-params.js'
import type { DebugBackend } from './backend.js'

/** The height a number or tag names (may be past the head). */
export function heightOf(backend: DebugBackend, block: BlockNumberOrTag): number {
  if (typeof block === 'number') return block
  return block === 'earliest' ? 0 : backend.latestHeight()
}

/** The block a selector names; `what` (`block`, `header`) words the not-found error. */
export async function resolveBlock(backend: DebugBackend, selector: BlockSelector, what = 'block'): Promise<EvmBlock> {
  if (typeof selector === 'object') {
    const block = await backend.getBlockByHash(selector.hash)
    if (!block) throw new NodeError(`${what} ${bytesToHex(selector.hash)} not found`)
    return block
  }
  const height = heightOf(backend, selector)
  const block = height <= backend.latestHeight() ? await backend.getBlockByNumber(height) : undefined
  if (!block) throw new NodeError(`${what} #${height} not found`)
  return block
}
