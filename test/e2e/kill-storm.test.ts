/**
 * A bounded kill storm in CI (test/helpers/kill-storm.ts): the built binary, `nodectl start --dev --home`,
 * under load from four senders, SIGKILLed at random moments and restarted on the same home. After every
 * restart each receipt the node had returned comes back identical, the blocks that held them keep their
 * hashes, and new transactions are mined. Runs the built `dist/`; skipped when it has not been built.
 * NODECTL_KILL_STORM_SEED replays a seed; NODECTL_KILL_STORM_KILLS changes the number of kills. The long
 * version: `npm run bench -- --kill-storm 100`.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { runKillStorm } from '../helpers/kill-storm.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/start.js'))
if (!BUILT) console.warn('test/e2e/kill-storm.test.ts skipped: dist/commands/start.js is missing; run `npm run build` first')

/** Kills in CI: enough to land in every phase of a height a few times; about 15 s on 2 cores (2 min at most). */
const KILLS = Number(process.env.NODECTL_KILL_STORM_KILLS ?? 20)
const SEED = Number(process.env.NODECTL_KILL_STORM_SEED ?? Math.floor(Math.random() * 2 ** 32))

describe.skipIf(!BUILT)('kill storm: SIGKILLs of a dev node under load', () => {
  let home: string | undefined
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true })
  })

  it(`loses no acknowledged receipt and keeps committing across ${KILLS} SIGKILLs (seed ${SEED})`, async () => {
    home = await mkdtemp(join(tmpdir(), 'nodectl-kill-storm-'))
    console.log(`kill storm seed ${SEED} (replay with NODECTL_KILL_STORM_SEED=${SEED})`)
    const result = await runKillStorm({
      home,
      kills: KILLS,
      seed: SEED,
      senders: 4,
      window: 8,
      sendsBeforeKill: [5, 60],
      maxKillDelayMs: 300,
      stallTimeoutMs: 30_000,
      env: { NODECTL_LOG_LEVEL: 'warn' },
    })
    const { lost, sendErrors, ...counts } = result
    console.log(`kill storm ${JSON.stringify({ ...counts, lost: lost.length, sendErrors: sendErrors.length })}`)
    expect(lost, `seed ${SEED}`).toEqual([])
    expect(sendErrors, `seed ${SEED}`).toEqual([])
    expect(result.kills).toBe(KILLS)
    // The restarts re-read receipts and block hashes (each restart all recorded before it).
    expect(result.receiptsChecked).toBeGreaterThan(0)
    expect(result.blocksChecked).toBeGreaterThan(0)
    expect(result.receipts).toBeGreaterThan(KILLS)
    // Each acknowledged transaction was mined (receipt recorded) or dropped with the pool by a crash.
    expect(result.receipts + result.dropped).toBe(result.sent)
  }, 240_000)
})
