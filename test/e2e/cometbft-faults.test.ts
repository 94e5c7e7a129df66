/**
 * SIGKILLs under load with a stock CometBFT (test/helpers/kill-storm.ts over `cometbft` + `nodectl start
 * --abci`): the application killed (CometBFT stops with it) and both started again; CometBFT killed alone
 * and started again while the application keeps serving. After every restart each receipt nodectl had
 * returned comes back identical, the blocks that held them keep their hashes, and new transactions are
 * mined.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseEther } from 'ethers'
import { afterEach, expect, it } from 'vitest'
import { defaultNodeSettings } from '../../src/config/defaults.js'
import { initHome } from '../../src/config/init-home.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { CometbftPair } from '../helpers/cometbft-pair.js'
import { describeWithCometbft } from '../helpers/cometbft.js'
import { runKillStorm, type KillStormResult, type StormNode } from '../helpers/kill-storm.js'
import { pickPortBlock } from '../helpers/ports.js'

const SENDERS = 3
const KILLS = 6
const SEED = Number(process.env.NODECTL_KILL_STORM_SEED ?? Math.floor(Math.random() * 2 ** 32))

describeWithCometbft('SIGKILLs under load with CometBFT', (bin) => {
  const dirs: string[] = []
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
  })

  async function newPair(): Promise<CometbftPair> {
    const dir = await mkdtemp(join(tmpdir(), 'nodectl-abci-faults-'))
    dirs.push(dir)
    const settings = defaultNodeSettings('faults')
    settings.consensus.timeoutCommit = 100
    const accounts = devAccounts(SENDERS).map((a) => ({ address: a.address, balance: parseEther('1000') }))
    const home = await initHome({ home: join(dir, 'home'), moniker: 'faults', settings, accounts })
    const port = await pickPortBlock(3)
    return new CometbftPair(bin, home.home, { abci: port, rpc: port + 1, p2p: port + 2 })
  }

  /** The pair as the storm sees it: `victim` is the process it kills. */
  function stormNode(pair: CometbftPair, victim: 'app' | 'comet'): StormNode {
    return {
      child: (victim === 'app' ? pair.app.child : pair.comet.child)!,
      url: pair.evmUrl,
      wsUrl: pair.evmWsUrl,
      get output() {
        return pair.report().split('\n')
      },
    }
  }

  async function storm(pair: CometbftPair, restart: () => Promise<void>, victim: 'app' | 'comet'): Promise<KillStormResult> {
    let started = false
    const result = await runKillStorm({
      home: pair.home,
      target: {
        start: async () => {
          if (started) await restart()
          else await pair.start()
          started = true
          return stormNode(pair, victim)
        },
        stop: () => pair.stop(),
      },
      kills: KILLS,
      seed: SEED,
      senders: SENDERS,
      window: 6,
      sendsBeforeKill: [5, 30],
      maxKillDelayMs: 300,
      stallTimeoutMs: 60_000,
    })
    const { lost, sendErrors, ...counts } = result
    console.log(`${victim} storm ${JSON.stringify({ ...counts, lost: lost.length, sendErrors: sendErrors.length })}`)
    expect(lost, `seed ${SEED}`).toEqual([])
    expect(sendErrors, `seed ${SEED}`).toEqual([])
    expect(result.kills).toBe(KILLS)
    expect(result.receiptsChecked).toBeGreaterThan(0)
    expect(result.receipts).toBeGreaterThan(KILLS)
    return result
  }

  it(`the application SIGKILLed ${KILLS} times, then both started again: no receipt lost (seed ${SEED})`, async () => {
    const pair = await newPair()
    await storm(
      pair,
      async () => {
        // CometBFT stops once its application is gone; what is left of it is stopped too.
        await pair.kill('comet')
        await pair.startApp()
        await pair.startComet()
      },
      'app',
    )
  }, 300_000)

  it(`CometBFT SIGKILLed ${KILLS} times and started again alone: no receipt lost (seed ${SEED})`, async () => {
    const pair = await newPair()
    await storm(pair, () => pair.startComet(), 'comet')
  }, 300_000)
})
