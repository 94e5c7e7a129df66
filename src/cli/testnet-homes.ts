/**
 * The homes `nodectl testnet init-files` wrote, as `nodectl testnet start` finds them: the subfolders
 * `node<i>` of the output folder that hold `config/config.toml`, in the order of i, each with its
 * moniker and JSON-RPC URL read from its files when they load.
 */
import { readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { formatHostPort } from '../config/listen-address.js'
import { loadNodeConfig } from '../config/load.js'
import { ConfigError } from '../utils/errors.js'
import { pathExists } from '../utils/files.js'

/** A home of the testnet folder. */
export interface TestnetHome {
  /** The i of `node<i>`. */
  index: number
  /** `moniker` of its config.toml; the folder name when the files do not load. */
  moniker: string
  /** Absolute home directory. */
  home: string
  /** `http://<[json-rpc] address>` of its app.toml; undefined when JSON-RPC is off or the files do not load. */
  jsonRpc?: string
}

/** Names of the home folders init-files writes. */
const HOME_FOLDER = /^node(\d+)$/

/** The homes in `outputDir`, sorted by index; [] when it holds none or does not exist. */
export async function findTestnetHomes(outputDir: string): Promise<TestnetHome[]> {
  const dir = resolve(outputDir)
  let entries: { name: string; isDirectory(): boolean }[]
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return []
    throw err
  }
  const homes: TestnetHome[] = []
  for (const entry of entries) {
    const m = HOME_FOLDER.exec(entry.name)
    if (!m || !entry.isDirectory()) continue
    const home = join(dir, entry.name)
    if (!(await pathExists(join(home, 'config/config.toml')))) continue
    const loaded = await describeHome(home)
    homes.push({ index: Number(m[1]), moniker: loaded?.moniker || entry.name, home, jsonRpc: loaded?.jsonRpc })
  }
  return homes.sort((a, b) => a.index - b.index)
}

/** The homes of `indexes` (`--nodes 0,2`), in the order of `homes`; ConfigError `--nodes: …` for an index without a home. */
export function selectTestnetHomes(homes: readonly TestnetHome[], indexes: string): TestnetHome[] {
  const wanted = new Set<number>()
  for (const part of indexes.split(',').map((p) => p.trim())) {
    if (!/^\d+$/.test(part)) throw new ConfigError('--nodes', `want node indexes such as 0,2, got "${indexes}"`)
    const index = Number(part)
    if (!homes.some((h) => h.index === index))
      throw new ConfigError('--nodes', `no home node${index} (found ${homes.map((h) => `node${h.index}`).join(', ')})`)
    wanted.add(index)
  }
  return homes.filter((h) => wanted.has(h.index))
}

/**
 * Moniker and JSON-RPC URL as `nodectl start --home <home>` resolves them (files, then the NODECTL_*
 * environment the child inherits); undefined when the files do not load (the child then says why).
 */
async function describeHome(home: string): Promise<{ moniker: string; jsonRpc?: string } | undefined> {
  try {
    const config = await loadNodeConfig({ home })
    return {
      moniker: config.moniker,
      jsonRpc: config.jsonRpc.enable ? `http://${formatHostPort(config.jsonRpc.address)}` : undefined,
    }
  } catch {
    return undefined
  }
}
