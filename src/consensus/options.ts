/**
 * Consensus options: the `[consensus]` section of config.toml (`ConsensusConfig`), its CometBFT defaults,
 * the `--dev` preset and a test preset, and the round-dependent timeouts (CometBFT `config/config.go`).
 */
import type { ConsensusConfig } from '../config/node-config.js'

export type { ConsensusConfig }

/**
 * CometBFT v0.38 `DefaultConsensusConfig` (shared/reference/cometbft-rpc.md §6.2), durations in ms:
 * propose 3 s (+500 ms per round), prevote and precommit 1 s (+500 ms), commit 1 s, every height proposed.
 */
export const defaultConsensusConfig: Readonly<ConsensusConfig> = Object.freeze({
  timeoutPropose: 3000,
  timeoutProposeDelta: 500,
  timeoutPrevote: 1000,
  timeoutPrevoteDelta: 500,
  timeoutPrecommit: 1000,
  timeoutPrecommitDelta: 500,
  timeoutCommit: 1000,
  skipTimeoutCommit: false,
  createEmptyBlocks: true,
  createEmptyBlocksInterval: 0,
  doubleSignCheckHeight: 0,
})

/**
 * `start --dev` (one validator): no commit wait (`timeoutCommit` 0 and `skipTimeoutCommit`, so the next
 * height starts as soon as our own precommit is in), and `createEmptyBlocksInterval` 5 s, which makes the
 * engine wait for mempool txs at round 0 (CometBFT `WaitForTxs`) and propose as soon as one arrives,
 * with an empty block at most every 5 s so that block time moves. The propose/vote timeouts only matter
 * if the node stops being the only validator, so they keep CometBFT's defaults.
 */
export const devConsensusConfig: Readonly<ConsensusConfig> = Object.freeze({
  ...defaultConsensusConfig,
  timeoutCommit: 0,
  skipTimeoutCommit: true,
  createEmptyBlocks: true,
  createEmptyBlocksInterval: 5000,
})

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
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`consensus.${key}: must be a non-negative number, got ${String(v)}`)
  }
}
