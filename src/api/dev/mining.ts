/**
 * Mining control (docs/dev-chain.md, "Mining"): automine, mining on demand and interval mining, under
 * Anvil's names and their Hardhat aliases. Where Anvil and Hardhat answer differently, each name
 * answers as its own node does: the `evm_`/`hardhat_` setters `true` (Hardhat), the `anvil_` ones `null`
 * (Anvil); `evm_setIntervalMining` takes milliseconds (Hardhat), `anvil_setIntervalMining` seconds (Anvil).
 */
import { DecodeError, bool, jsonKind, objectOf, structField, uint64, type Codec } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import { defineAliases } from './aliases.js'
import type { MiningBackend } from './mining-backend.js'

/** Most blocks one call may ask for: a run is one stretch of the engine's loop (Anvil has no bound). */
export const MAX_MINE_BLOCKS = 100_000

/** Anvil's default gap between the timestamps of the blocks of `anvil_mine`, in seconds. */
const DEFAULT_MINE_INTERVAL = 1n

/** A timestamp or count given as a QUANTITY or a JSON number (Anvil and Hardhat take both). */
const quantityOrNumber: Codec<bigint> = (value) => {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new DecodeError(`number ${value}`, 'uint64')
    return BigInt(value)
  }
  return uint64(value)
}

/** `evm_mine`'s one optional argument: a timestamp, or Anvil's `{timestamp, blocks}`. */
const mineOptions: Codec<{ timestamp?: bigint; blocks?: bigint }> = (value) => {
  if (typeof value === 'number' || typeof value === 'string') return { timestamp: quantityOrNumber(value) }
  if (typeof value !== 'object' || value === null) throw new DecodeError(jsonKind(value), 'MineOptions')
  const obj = objectOf(value, 'MineOptions')
  const timestamp = structField(obj, 'MineOptions', 'timestamp', quantityOrNumber)
  const blocks = structField(obj, 'MineOptions', 'blocks', quantityOrNumber)
  return { ...(timestamp !== undefined ? { timestamp } : {}), ...(blocks !== undefined ? { blocks } : {}) }
}

/** A block count within {@link MAX_MINE_BLOCKS}. */
function blockCount(n: bigint): number {
  if (n > BigInt(MAX_MINE_BLOCKS)) throw new DecodeError(`at most ${MAX_MINE_BLOCKS} blocks per call, asked ${n}`)
  return Number(n)
}

const mineCount: Codec<number> = (value) => blockCount(quantityOrNumber(value))

export function createMiningMethods(backend: MiningBackend): MethodTable {
  const mine = async ([count, interval]: [number, bigint]) => {
    if (count > 0) await backend.mine(count, { interval })
  }
  return [
    defineMethod('evm_setAutomine', [required(bool)], ([on]) => {
      backend.setAutomine(on)
      return true
    }),
    defineMethod('anvil_setAutomine', [required(bool)], ([on]) => {
      backend.setAutomine(on)
      return null
    }),
    ...defineAliases(['anvil_getAutomine', 'hardhat_getAutomine'], [], () => backend.getAutomine()),
    defineMethod('evm_mine', [optional(mineOptions)], async ([opts]) => {
      const blocks = opts?.blocks === undefined ? 1 : blockCount(opts.blocks)
      await backend.mine(blocks, opts?.timestamp === undefined ? {} : { timestamp: opts.timestamp, interval: DEFAULT_MINE_INTERVAL })
      return '0x0'
    }),
    defineMethod('anvil_mine', [optional(mineCount, 1), optional(quantityOrNumber, DEFAULT_MINE_INTERVAL)], async (args) => {
      await mine(args)
      return null
    }),
    defineMethod('hardhat_mine', [optional(mineCount, 1), optional(quantityOrNumber, DEFAULT_MINE_INTERVAL)], async (args) => {
      await mine(args)
      return true
    }),
    defineMethod('evm_setIntervalMining', [required(quantityOrNumber)], ([ms]) => {
      backend.setIntervalMining(Number(ms))
      return true
    }),
    defineMethod('anvil_setIntervalMining', [required(quantityOrNumber)], ([seconds]) => {
      backend.setIntervalMining(Number(seconds) * 1000)
      return null
    }),
  ]
}
