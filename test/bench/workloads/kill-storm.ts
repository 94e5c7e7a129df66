/**
 * `--kill-storm N`: the long kill storm of issue 27 (test/helpers/kill-storm.ts, bounded in CI by
 * test/e2e/kill-storm.test.ts): N random SIGKILLs of a spawned `nodectl start --dev` under load from
 * every sender, each receipt the node returned and each block that held one re-checked after every
 * restart. Prints the seed first, a `kill-storm` line with the counts at the end, and fails when a
 * receipt was lost. `--seed S` replays a storm.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runKillStorm } from '../../helpers/kill-storm.js'
import type { BenchOptions } from '../options.js'
import type { Emit } from './context.js'

/** Transactions of one sender waiting at once: with 10 senders, blocks of up to 160 transfers. */
const WINDOW = 16
/** A kill comes after this many acknowledged sends since the restart, then up to this many ms later. */
const SENDS_BEFORE_KILL = [20, 600] as const
const MAX_KILL_DELAY_MS = 1000
/** Longest wait for a start or for the next receipt. */
const STALL_TIMEOUT_MS = 60_000

export async function runKillStormBench(options: BenchOptions, kills: number, emit: Emit): Promise<void> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32)
  process.stderr.write(`kill storm: ${kills} kills, seed ${seed} (replay with --seed ${seed})\n`)
  const home = mkdtempSync(join(tmpdir(), 'nodectl-bench-kill-storm-'))
  const started = performance.now()
  try {
    const result = await runKillStorm({
      home,
      kills,
      seed,
      senders: options.senders,
      window: WINDOW,
      sendsBeforeKill: SENDS_BEFORE_KILL,
      maxKillDelayMs: MAX_KILL_DELAY_MS,
      stallTimeoutMs: STALL_TIMEOUT_MS,
      env: { NODECTL_LOG_LEVEL: 'warn' },
      log: (line) => process.stderr.write(`${line}\n`),
    })
    const { lost, sendErrors, ...counts } = result
    emit('kill-storm', {
      ...counts,
      lost: lost.length,
      sendErrors: sendErrors.length,
      seconds: Math.round((performance.now() - started) / 1000),
    })
    for (const l of lost.slice(0, 10)) process.stderr.write(`lost: ${JSON.stringify(l)}\n`)
    for (const e of sendErrors.slice(0, 10)) process.stderr.write(`send error: ${e}\n`)
    if (lost.length > 0) throw new Error(`kill storm (seed ${seed}): ${lost.length} receipts or block hashes not returned as recorded`)
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}
