/**
 * `--big-state N`'s chain: a `--dev` home whose genesis also funds N accounts and puts the test Token
 * at {@link BIG_TOKEN_ADDRESS} with those N accounts as holders and the 10 dev accounts (whose keys the
 * bench signs with) as senders, written by scripts/big-genesis.mjs. The genesis is built once into a
 * cache folder outside the repository; each run starts from a copy of it with an empty database.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, linkSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { initDevHome } from '../../src/config/init-home.js'
import { REPO_ROOT } from '../helpers/repo-root.js'

/** Where scripts/big-genesis.mjs puts the Token. */
export const BIG_TOKEN_ADDRESS = '0x0000000000000000000000000000000000007070'

/** scripts/big-genesis.mjs's first holder address; holder i is this + i. */
const FIRST_HOLDER = 0x10000000n

/**
 * Multiplier of {@link bigStateHolder}: a prime above any N the bench builds, so i ↦ i·P mod N visits
 * every holder once per N calls, in an order scattered over the address range (Knuth's multiplicative hash).
 */
const HOLDER_STRIDE = 2_654_435_761

/** File written into the cache folder once the genesis is complete: a build cut short is redone. */
const COMPLETE_MARK = 'complete'

/** The genesis's path inside a home. */
const GENESIS = join('config', 'genesis.json')

/** The default cache folder of a big state of `n` accounts. */
export function bigStateCacheDir(n: number): string {
  return join(homedir(), '.cache', 'nodectl', `bench-big-${n}`)
}

/** The `i`-th holder picked by a workload out of `n`: distinct for n calls in a row, spread over all of them. */
export function bigStateHolder(i: number, n: number, offset = 0): string {
  const k = (BigInt(i) * BigInt(HOLDER_STRIDE) + BigInt(offset)) % BigInt(n)
  return `0x${(FIRST_HOLDER + k).toString(16).padStart(40, '0')}`
}

/** The genesis home of the cache folder, and how it was obtained. */
export interface BigStateTemplate {
  /** A `--dev` home never started: config with the big genesis, an empty data folder. */
  home: string
  /** Seconds spent building it now; undefined when the cache held it. */
  buildSeconds: number | undefined
  /** Size of its genesis.json in MB. */
  genesisMb: number
}

/** The cached genesis home of `n` accounts in `cacheDir`, built first when missing or incomplete. */
export async function prepareBigStateTemplate(n: number, cacheDir: string): Promise<BigStateTemplate> {
  const home = join(cacheDir, 'template')
  let buildSeconds: number | undefined
  if (!existsSync(join(cacheDir, COMPLETE_MARK))) {
    const t0 = performance.now()
    rmSync(cacheDir, { recursive: true, force: true })
    mkdirSync(home, { recursive: true })
    await initDevHome(home, { moniker: 'bench-big' })
    execFileSync(process.execPath, [resolve(REPO_ROOT, 'scripts/big-genesis.mjs'), home, String(n), '--token'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    writeFileSync(join(cacheDir, COMPLETE_MARK), `${n}\n`)
    buildSeconds = Math.round((performance.now() - t0) / 100) / 10
  }
  return { home, buildSeconds, genesisMb: Math.round(statSync(join(home, GENESIS)).size / 2 ** 20) }
}

/**
 * A fresh copy of the template at `to` (removed first): every file copied but genesis.json, which is
 * hard-linked (the node only reads it, and it is the one large file).
 */
export function copyBigStateHome(template: string, to: string): void {
  rmSync(to, { recursive: true, force: true })
  cpSync(template, to, { recursive: true, filter: (src) => !src.endsWith(GENESIS) })
  linkSync(join(template, GENESIS), join(to, GENESIS))
}

/** Disk use of a folder in MB (`du`). */
export function diskMb(dir: string): number {
  const kb = Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0])
  return Math.round(kb / 1024)
}
