/**
 * Consensus options: the `[consensus]` section of config.toml (`ConsensusConfig`; its CometBFT defaults and
 * the `--dev` preset live with the other settings in config/defaults.ts), the one test preset (used by the
 * in-process networks of the consensus tests and, through node/test-settings.ts, by every test node), and
 * the round-dependent timeouts (CometBFT `config/config.go`).
 */
import type { ConsensusConfig } from '../config/node-config.js'

export type { ConsensusConfig }

/**
 * Tests: timeouts in tens of ms (CometBFT `TestConsensusConfig` uses 40/10/10 ms; ours are a little
 * longer because every node of an in-process network fsyncs its WAL and signer state on a shared disk),
 * with a per-round delta so that a slow machine still reaches a round where everyone is in time.
 */
export const testConsensusConfig: Readonly<ConsensusConfig> = Object.freeze({
  timeoutPropose: 120,
  timeoutProposeDelta: 40,
  timeoutPrevote: 40,
  timeoutPrevoteDelta: 20,
  timeoutPrecommit: 40,
  timeoutPrecommitDelta: 20,
  timeoutCommit: 10,
  skipTimeoutCommit: true,
  createEmptyBlocks: true,
  createEmptyBlocksInterval: 0,
  doubleSignCheckHeight: 0,
})

/** Wait for a proposal before prevoting nil (paper line 21/57): base + round·delta. */
export function proposeTimeout(cfg: ConsensusConfig, round: number): number {
  return cfg.timeoutPropose + cfg.timeoutProposeDelta * round
}

/** Wait after +2/3 prevotes for anything (paper line 34). */
export function prevoteTimeout(cfg: ConsensusConfig, round: number): number {
  return cfg.timeoutPrevote + cfg.timeoutPrevoteDelta * round
}

/** Wait after +2/3 precommits for anything (paper line 47). */
export function precommitTimeout(cfg: ConsensusConfig, round: number): number {
  return cfg.timeoutPrecommit + cfg.timeoutPrecommitDelta * round
}

/**
 * CometBFT `WaitForTxs()`: with empty blocks off, or an interval set, round 0 of a height waits for mempool
 * txs (or the interval) before proposing, unless a proof block is needed.
 */
export function waitForTxs(cfg: ConsensusConfig): boolean {
  return !cfg.createEmptyBlocks || cfg.createEmptyBlocksInterval > 0
}

/** Checks the options once at start-up; messages name the config.toml key. */
export function validateConsensusConfig(cfg: ConsensusConfig): void {
  const durations: [keyof ConsensusConfig, string][] = [
    ['timeoutPropose', 'timeout_propose'],
    ['timeoutProposeDelta', 'timeout_propose_delta'],
    ['timeoutPrevote', 'timeout_prevote'],
    ['timeoutPrevoteDelta', 'timeout_prevote_delta'],
    ['timeoutPrecommit', 'timeout_precommit'],
    ['timeoutPrecommitDelta', 'timeout_precommit_delta'],
    ['timeoutCommit', 'timeout_commit'],
    ['createEmptyBlocksInterval', 'create_empty_blocks_interval'],
    ['doubleSignCheckHeight', 'double_sign_check_height'],
  ]
  for (const [field, key] of durations) {
    const v = cfg[field]
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new Error(`consensus.${key}: must be a non-negative number, got ${String(v)}`)
  }
}
