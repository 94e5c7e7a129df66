/**
 * The header settings of a development chain that last beyond one block: the clock's offset from
 * consensus time (evm_increaseTime, evm_setTime, evm_setNextBlockTimestamp), the coinbase
 * (anvil_setCoinbase) and the block gas limit (evm_setBlockGasLimit). Only dev operations carried in
 * blocks change them, so replay computes them again.
 *
 * Each height that changes them stores a record (key `meta ‖ "evm/dev/" ‖ height`, 8-byte big-endian,
 * value RLP[offsetSign, |offset|, coinbase or empty, gasLimit or empty]); the settings at a height are
 * those of the newest record at or below it, so a chain taken back to an earlier height reads that
 * height's settings. The dev operations of each height that has some are kept too (key
 * `meta ‖ "evm/dev-ops/" ‖ height`, value RLP[op…]): a trace re-executes the block with its sets.
 */
import { RLP } from '@ethereumjs/rlp'
import type { Database } from '../../db/database.js'
import { metaKey } from '../../db/prefixes.js'
import type { WriteStage } from '../../db/write-stage.js'
import { bytesToBigint, equalBytes } from '../../primitives/hex.js'

export interface DevSettings {
  /** Seconds added to the consensus time (s) to make a block's EVM timestamp; may be negative. */
  timeOffset: bigint
  /** Coinbase of every block instead of the proposer's fee recipient. */
  coinbase: Uint8Array | undefined
  /** Block gas limit instead of the consensus `block.max_gas`. */
  gasLimit: bigint | undefined
}

export const DEFAULT_DEV_SETTINGS: DevSettings = { timeOffset: 0n, coinbase: undefined, gasLimit: undefined }

const KEY_PREFIX = metaKey('evm/dev/')
const OPS_KEY_PREFIX = metaKey('evm/dev-ops/')
const EMPTY = new Uint8Array(0)

function keyAt(prefix: Uint8Array, height: number): Uint8Array {
  const key = new Uint8Array(prefix.length + 8)
  key.set(prefix)
  new DataView(key.buffer).setBigUint64(prefix.length, BigInt(height))
  return key
}

function settingsKey(height: number): Uint8Array {
  return keyAt(KEY_PREFIX, height)
}

export function encodeDevSettings(s: DevSettings): Uint8Array {
  const negative = s.timeOffset < 0n
  return RLP.encode([negative ? 1 : 0, negative ? -s.timeOffset : s.timeOffset, s.coinbase ?? EMPTY, s.gasLimit ?? EMPTY])
}

export function decodeDevSettings(bytes: Uint8Array): DevSettings {
  const [sign, offset, coinbase, gasLimit] = RLP.decode(bytes) as Uint8Array[]
  const abs = bytesToBigint(offset!)
  return {
    timeOffset: bytesToBigint(sign!) === 1n ? -abs : abs,
    coinbase: coinbase!.length === 0 ? undefined : coinbase,
    gasLimit: gasLimit!.length === 0 ? undefined : bytesToBigint(gasLimit!),
  }
}

export function sameDevSettings(a: DevSettings, b: DevSettings): boolean {
  const sameCoinbase = a.coinbase === undefined ? b.coinbase === undefined : b.coinbase !== undefined && equalBytes(a.coinbase, b.coinbase)
  return a.timeOffset === b.timeOffset && a.gasLimit === b.gasLimit && sameCoinbase
}

/** Stages the settings in force from `height` on. */
export function stageDevSettings(stage: WriteStage, height: number, s: DevSettings): void {
  stage.put(settingsKey(height), encodeDevSettings(s))
}

/** The settings in force at `height`: the newest record at or below it, else the defaults. */
export async function loadDevSettings(db: Database, height: number): Promise<DevSettings> {
  for await (const [, value] of db.iterate({ gte: settingsKey(0), lt: settingsKey(height + 1), reverse: true, limit: 1 })) {
    return decodeDevSettings(value)
  }
  return DEFAULT_DEV_SETTINGS
}

/** Stages the dev operations block `height` carried (encoded, in order). */
export function stageBlockDevOps(stage: WriteStage, height: number, ops: readonly Uint8Array[]): void {
  stage.put(keyAt(OPS_KEY_PREFIX, height), RLP.encode([...ops]))
}

/** The dev operations block `height` carried; none when it carried none. */
export async function loadBlockDevOps(db: Database, height: number): Promise<Uint8Array[]> {
  const raw = await db.get(keyAt(OPS_KEY_PREFIX, height))
  return raw ? (RLP.decode(raw) as Uint8Array[]) : []
}
