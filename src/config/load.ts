/**
 * Resolves a node's configuration: defaults (or the `--dev` preset) < config.toml / app.toml <
 * environment < flags, then validates once. Every invalid value is a ConfigError naming where it
 * came from:
 *   flag      `--json-rpc.api: unknown namespace "foo" (known: …)`
 *   env       `NODECTL_RPC_LADDR: cannot parse "x": want tcp://host:port`
 *   file      `config.toml [rpc] laddr: cannot parse "tcp://x:y": …`, `app.toml: malformed TOML at line 3: …`
 *   genesis   `genesis.json: chain_id: invalid chain id "x" …`
 * Environment names follow one rule, `NODECTL_<SECTION>_<KEY>` (settings.ts `envNameOf`).
 */
import { ConfigError } from '../utils/errors.js'
import { COMETBFT_ONLY_KEYS } from './cometbft-keys.js'
import { defaultNodeSettings, devNodeSettings, type NodeSettings } from './defaults.js'
import { loadNodeGenesis } from './genesis-file.js'
import { homePaths, resolveHome } from './home.js'
import type { InitHomeResult } from './init-home.js'
import { formatHostPort } from './listen-address.js'
import type { HostPort, NodeConfig } from './node-config.js'
import { validatePruning } from './pruning.js'
import { isTable, readTomlFile, type TomlTable } from './read-toml.js'
import { SECTIONS, SETTINGS, fileKeyLabel, type ConfigFile, type Setting } from './settings.js'

/** Options of {@link loadNodeConfig}. */
export interface LoadNodeConfigOptions {
  /** Home directory (relative paths are resolved against the working directory). */
  home: string
  /** Parsed flags by name without dashes (`{'json-rpc.api': 'eth,net', log_level: 'debug'}`); undefined values are ignored (default {}). */
  flags?: Record<string, unknown>
  /** Environment (default process.env). */
  env?: NodeJS.ProcessEnv
  /** Start from the `--dev` preset instead of the defaults; the files still win over it (default false). */
  dev?: boolean
  /** Receives non-fatal findings: keys the files hold that nodectl does not know (default: dropped). */
  onWarning?: (message: string) => void
  /**
   * What this process has just written the home from (`initHome`'s result): its files are then not read
   * back, their settings and genesis are these (reading and parsing them again cost `start --dev` ~10 ms).
   */
  written?: Pick<InitHomeResult, 'settings' | 'genesis'>
  /**
   * Receives the resolved settings and where each one not left at its default came from (a file key, a
   * variable or a flag), once they are valid (`config show`).
   */
  onResolved?: (settings: NodeSettings, sources: ReadonlyMap<Setting, string>) => void
}

const MIN_GAS_PRICE_SETTING = SETTINGS.find((s) => s.flag === 'minimum-gas-prices')!

/** A raw value and where it came from (for error messages). */
interface Sourced {
  raw: unknown
  label: string
}

/** Loads, merges and validates; throws ConfigError on the first bad value. */
export async function loadNodeConfig(opts: LoadNodeConfigOptions): Promise<NodeConfig> {
  const home = resolveHome(opts.home, {})
  const env = opts.env ?? process.env
  const flags = opts.flags ?? {}
  const warn = opts.onWarning ?? (() => {})
  const fixed = homePaths(home)

  const chosen = new Map<Setting, Sourced>()
  const files = [
    ['config.toml', fixed.configToml],
    ['app.toml', fixed.appToml],
  ] as const
  for (const [file, path] of opts.written ? [] : files) {
    const doc = await readTomlFile(path, file)
    if (doc) collectFile(file, doc, chosen, warn)
  }
  for (const setting of SETTINGS) {
    const fromEnv = env[setting.env]
    if (fromEnv !== undefined) chosen.set(setting, { raw: fromEnv, label: setting.env })
    const fromFlag = flags[setting.flag]
    if (fromFlag !== undefined) chosen.set(setting, { raw: fromFlag, label: `--${setting.flag}` })
  }

  const settings = opts.written ? structuredClone(opts.written.settings) : opts.dev ? devNodeSettings() : defaultNodeSettings()
  for (const [setting, { raw, label }] of chosen) {
    try {
      setting.write(settings, raw)
    } catch (err) {
      throw new ConfigError(label, (err as Error).message)
    }
  }
  const labelOf = (flag: string): string => {
    const setting = SETTINGS.find((s) => s.flag === flag)!
    return chosen.get(setting)?.label ?? `--${flag}`
  }
  validateSettings(settings, labelOf)
  if (settings.evm.disableCodeSizeLimit && opts.dev !== true) {
    // A rule of execution: validators that disagreed on it would compute different blocks.
    throw new ConfigError(labelOf('evm.disable-code-size-limit'), 'allowed on a dev chain only (nodectl start --dev)')
  }
  const pruningSource = chosen.get(SETTINGS.find((s) => s.flag === 'pruning')!)?.label
  validatePruning(settings.pruning, opts.dev === true, labelOf, pruningSource ?? 'default')
  if (settings.jsonRpc.clientIdentity !== 'nodectl' && opts.dev !== true) {
    // A node that is not a dev chain does not serve the dev methods such a name promises.
    throw new ConfigError(labelOf('json-rpc.client-identity'), 'anvil and hardhat are allowed on a dev chain only (nodectl start --dev)')
  }
  opts.onResolved?.(settings, new Map([...chosen].map(([setting, { label }]) => [setting, label])))

  const paths = homePaths(home, settings.files)
  const genesis = opts.written?.genesis ?? (await loadNodeGenesis(paths.genesis))
  return {
    home,
    moniker: settings.moniker,
    dev: opts.dev ?? false,
    chainId: genesis.chainId,
    evmChainId: genesis.evmChainId,
    logLevel: settings.logLevel,
    logFormat: settings.logFormat,
    consensus: settings.consensus,
    rpc: settings.rpc,
    mempool: settings.mempool,
    jsonRpc: settings.jsonRpc,
    minGasPrice: settings.minGasPrice,
    minRetainBlocks: settings.minRetainBlocks,
    // Either one overrides app.toml at every start, so a miner_setGasPrice written to the file would not apply.
    minGasPriceFromFlag: !(chosen.get(MIN_GAS_PRICE_SETTING)?.label ?? 'app.toml').startsWith('app.toml'),
    txIndex: settings.txIndex,
    instrumentation: settings.instrumentation,
    statesync: settings.statesync,
    pruning: settings.pruning,
    evm: settings.evm,
    abci: settings.abci,
    snapshots: settings.snapshots,
    p2p: settings.p2p,
    genesis,
    paths,
  }
}

/** Records the file's value of every known key; reports unknown tables and keys through `warn`. */
function collectFile(file: ConfigFile, doc: TomlTable, chosen: Map<Setting, Sourced>, warn: (message: string) => void): void {
  const sections = new Set(SECTIONS.filter((s) => s.file === file).map((s) => s.name))
  for (const [name, value] of Object.entries(doc)) {
    if (isTable(value)) {
      if (!sections.has(name) || name === '') {
        warn(`${file}: unknown table [${name}] (ignored)`)
        continue
      }
      for (const [key, raw] of Object.entries(value)) collectKey(file, name, key, raw, chosen, warn)
    } else {
      collectKey(file, '', name, value, chosen, warn)
    }
  }
}

function collectKey(
  file: ConfigFile,
  section: string,
  key: string,
  raw: unknown,
  chosen: Map<Setting, Sourced>,
  warn: (message: string) => void,
): void {
  const setting = SETTINGS.find((s) => s.file === file && s.section === section && s.key === key)
  if (!setting && file === 'config.toml' && COMETBFT_ONLY_KEYS[section]?.includes(key)) return
  if (!setting) {
    warn(`${file}${section ? ` [${section}]` : ''}: unknown key "${key}" (ignored)`)
    return
  }
  chosen.set(setting, { raw, label: fileKeyLabel(setting) })
}

/** The checks that involve more than one key; `labelOf(flag)` names where a key's value came from. */
export function validateSettings(settings: NodeSettings, labelOf: (flag: string) => string): void {
  const { jsonRpc } = settings
  if (jsonRpc.enable && jsonRpc.api.length === 0)
    throw new ConfigError(labelOf('json-rpc.api'), 'cannot enable JSON-RPC without defining any API namespace')

  // Two listeners on one port would fail at start with EADDRINUSE; say which keys collide instead.
  const listeners: [string, HostPort | undefined][] = [
    ['rpc.laddr', settings.rpc.laddr],
    ['p2p.laddr', settings.p2p.laddr],
    ['json-rpc.address', jsonRpc.enable ? jsonRpc.address : undefined],
    ['json-rpc.ws-address', jsonRpc.enable ? jsonRpc.wsAddress : undefined],
    [
      'instrumentation.prometheus_listen_addr',
      settings.instrumentation.prometheus ? settings.instrumentation.prometheusListenAddr : undefined,
    ],
  ]
  for (let i = 0; i < listeners.length; i++) {
    for (let j = 0; j < i; j++) {
      const [flagA, a] = listeners[j]!
      const [flagB, b] = listeners[i]!
      if (a && b && a.port !== 0 && a.port === b.port && hostsOverlap(a.host, b.host)) {
        throw new ConfigError(labelOf(flagB), `${formatHostPort(b)} uses the same port as ${labelOf(flagA)} (${formatHostPort(a)})`)
      }
    }
  }
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', ''])

function hostsOverlap(a: string, b: string): boolean {
  return a === b || WILDCARD_HOSTS.has(a) || WILDCARD_HOSTS.has(b)
}
