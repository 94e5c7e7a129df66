/**
 * Cosmos SDK's state-pruning strategies (store/pruning/types): what each keeps, and the checks its
 * `Validate` makes, with its wording.
 */
import { ConfigError } from '../utils/errors.js'
import type { PruningConfig } from './node-config.js'

/** Heights of state kept below the latest and heights between two prunings (`default`). */
const DEFAULT_KEEP_RECENT = 362_880
const DEFAULT_INTERVAL = 10
/** `everything`: the least a node keeps, and the shortest interval `custom` may ask for. */
const EVERYTHING_KEEP_RECENT = 2
const EVERYTHING_INTERVAL = 10

/** What the pruner keeps: the latest height and `keepRecent` below it, pruned every `interval` heights. */
export interface PruningWindow {
  keepRecent: number
  interval: number
}

/** The window a strategy keeps; undefined for `nothing` (an archive node). */
export function pruningWindow(config: PruningConfig): PruningWindow | undefined {
  switch (config.strategy) {
    case 'nothing':
      return undefined
    case 'default':
      return { keepRecent: DEFAULT_KEEP_RECENT, interval: DEFAULT_INTERVAL }
    case 'everything':
      return { keepRecent: EVERYTHING_KEEP_RECENT, interval: EVERYTHING_INTERVAL }
    case 'custom':
      return { keepRecent: config.keepRecent, interval: config.interval }
  }
}

/**
 * A dev chain keeps every height's state (its evm_revert, snapshots and traces of old blocks need it):
 * there the files' `pruning` is not used, and a flag or environment variable asking for pruning is
 * refused. Elsewhere, refuses what Cosmos refuses: `custom` with an interval of 0 or below 10, or
 * keeping fewer than 2 heights.
 */
export function validatePruning(
  config: PruningConfig,
  dev: boolean,
  labelOf: (flag: string) => string,
  /** Where `pruning` was set (a file, `--pruning`, NODECTL_PRUNING), if anywhere. */
  source: string | undefined,
): void {
  if (config.strategy === 'nothing') return
  if (dev) {
    const label = source ?? labelOf('pruning')
    if (label.startsWith('--') || label.startsWith('NODECTL_'))
      throw new ConfigError(label, 'a dev chain keeps every height\'s state: pruning is "nothing" with --dev')
    config.strategy = 'nothing'
    return
  }
  if (config.strategy !== 'custom') return
  if (config.interval === 0)
    throw new ConfigError(
      labelOf('pruning-interval'),
      `'pruning-interval' must not be 0. If you want to disable pruning, select pruning = "nothing"`,
    )
  if (config.interval < EVERYTHING_INTERVAL)
    throw new ConfigError(
      labelOf('pruning-interval'),
      `'pruning-interval' must not be less than ${EVERYTHING_INTERVAL}. For the most aggressive pruning, select pruning = "everything"`,
    )
  if (config.keepRecent < EVERYTHING_KEEP_RECENT)
    throw new ConfigError(
      labelOf('pruning-keep-recent'),
      `'pruning-keep-recent' must not be less than ${EVERYTHING_KEEP_RECENT}. For the most aggressive pruning, select pruning = "everything"`,
    )
}
