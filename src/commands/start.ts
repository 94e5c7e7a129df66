/**
 * `nodectl start`: resolves the configuration (defaults < config.toml/app.toml < NODECTL_* < flags),
 * starts the node, prints where it listens, and stops it cleanly on SIGINT/SIGTERM.
 * `--dev` runs a throw-away single-validator chain (chain id nodectl_31337-1, the 10 well-known
 * accounts funded, every namespace on loopback), in a temporary home unless --home is given.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Command, Flags, type Interfaces } from '@oclif/core'
import { formatDuration } from '../config/duration.js'
import { resolveHome } from '../config/home.js'
import { HomeExistsError, initDevHome, isHomeInitialised } from '../config/init-home.js'
import { formatHostPort } from '../config/listen-address.js'
import { loadNodeConfig } from '../config/load.js'
import type { ConsensusConfig, HostPort, NodeConfig } from '../config/node-config.js'
import { SETTINGS } from '../config/settings.js'
import { DEV_MNEMONIC, devAccounts } from '../keystore/dev-accounts.js'
import { ETH_DERIVATION_PREFIX } from '../crypto/hd.js'
import type { SyncProgress } from '../consensus/block-sync.js'
import { Node, type NodeAddresses } from '../node/node.js'
import { bytesToUpperHex } from '../primitives/hex.js'
import { ConfigError } from '../utils/errors.js'
import { createLogger } from '../utils/logger.js'

/** 1 ether = 10^18 wei. */
const WEI_PER_ETHER = 10n ** 18n

/** oclif help group of each TOML table. */
const HELP_GROUP: Record<string, string> = {
  '': 'NODE',
  rpc: 'CONSENSUS RPC',
  p2p: 'P2P',
  mempool: 'MEMPOOL',
  consensus: 'CONSENSUS',
  tx_index: 'TX INDEX',
  api: 'JSON-RPC',
  'json-rpc': 'JSON-RPC',
}

/** One flag per setting, named `<section>.<key>` (settings.ts); no oclif defaults, so unset flags do not hide the files. */
function buildSettingFlags(): Interfaces.FlagInput {
  const out: Interfaces.FlagInput = {}
  for (const s of SETTINGS) {
    const helpGroup = HELP_GROUP[s.section] ?? s.section.toUpperCase()
    const summary = `${s.doc} (${s.file}${s.section ? ` [${s.section}]` : ''} ${s.key}, env ${s.env})`
    out[s.flag] = s.flagKind === 'boolean' ? Flags.boolean({ summary, allowNo: true, helpGroup }) : Flags.string({ summary, helpGroup })
  }
  return out
}

/** Flags whose value is a boolean (`--x`, `--no-x`, and here also `--x=true|false`, as cobra accepts). */
const BOOLEAN_FLAGS = new Set(['dev', ...SETTINGS.filter((s) => s.flagKind === 'boolean').map((s) => s.flag)])

/** Rewrites `--flag=true` to `--flag` and `--flag=false` to `--no-flag` for boolean settings (Evmos docs write `--json-rpc.enable=true`). */
export function normalizeBooleanArgs(argv: string[]): string[] {
  return argv.map((arg) => {
    const m = /^--([^=]+)=(true|false)$/i.exec(arg)
    if (!m || !BOOLEAN_FLAGS.has(m[1]!)) return arg
    return m[2]!.toLowerCase() === 'true' ? `--${m[1]}` : `--no-${m[1]}`
  })
}

/** `nodectl start`: see the file comment. */
export default class Start extends Command {
  static override summary = 'Run the node.'
  static override description =
    `Starts consensus and the RPC servers of the node in --home (default $NODECTL_HOME, else ~/.nodectl; create it with "nodectl init"). Every config.toml/app.toml key can be overridden with the flag --<table>.<key> or the environment variable NODECTL_<TABLE>_<KEY>; flags win over the environment, which wins over the files. With --dev, runs a throw-away chain: chain id nodectl_31337-1, the 10 accounts of "${DEV_MNEMONIC}" funded with 10,000 ETH each, all JSON-RPC namespaces on 127.0.0.1:8545 (HTTP) and :8546 (WebSocket), consensus RPC on 127.0.0.1:26657, a block as soon as transactions wait; in a temporary home deleted on exit, or in --home (initialised if empty). Stop with Ctrl-C.`
  static override usage = '<%= command.id %> [--home DIR] [--dev] [--<table>.<key> VALUE]...'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --dev',
    '<%= config.bin %> <%= command.id %> --json-rpc.enable --json-rpc.api eth,web3,net,txpool,debug',
    '<%= config.bin %> <%= command.id %> --home ./net/node0 --rpc.laddr tcp://127.0.0.1:36657 --log_level debug',
  ]
  static override flags = {
    home: Flags.string({ summary: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl; with --dev a new temporary directory].' }),
    dev: Flags.boolean({ summary: 'Run a throw-away development chain (see the description).' }),
    // Fault tests only: a byzantine validator that signs one conflicting prevote at the first height ≥ H.
    'unsafe-double-sign-at': Flags.integer({ hidden: true, min: 1 }),
    ...buildSettingFlags(),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Start, normalizeBooleanArgs(this.argv))
    const raw = flags as Record<string, unknown>
    const dev = flags.dev === true
    const explicitHome = typeof raw.home === 'string' ? raw.home : undefined
    const temporary = dev && explicitHome === undefined
    const home = temporary ? await mkdtemp(join(tmpdir(), 'nodectl-dev-')) : resolveHome(explicitHome)
    const signals = listenForStop(
      () => this.logToStderr('stopping already; press Ctrl-C again to exit without waiting'),
      // The conventional exit status of a process ended by SIGINT: 128 + 2.
      () => process.exit(130),
    )
    let phase: 'start' | 'stop' = 'start'
    try {
      if (dev && !(await isHomeInitialised(home))) await initDevHome(home)
      const config = await loadNodeConfig({ home, flags: raw, dev, onWarning: (m) => this.warn(m) })
      const log = createLogger({ level: config.logLevel, format: config.logFormat })
      const doubleSignAt = flags['unsafe-double-sign-at']
      const node = await Node.create(config, log, doubleSignAt === undefined ? {} : { consensus: { doubleSignAt } })
      let addresses: NodeAddresses
      try {
        addresses = await node.start()
      } catch (err) {
        await node.stop().catch(() => {})
        throw explainAddressInUse(err, config) ?? err
      }
      this.log(renderStartBanner({ config, addresses, version: this.config.version, temporaryHome: temporary }))
      node.events.on(
        'syncProgress',
        throttleProgress((line) => this.log(line)),
      )
      const signal = await signals.stopRequested
      this.logToStderr(`${signal} received, stopping`)
      phase = 'stop'
      await node.stop()
    } catch (err) {
      if (err instanceof ConfigError || err instanceof HomeExistsError) this.error(err.message, { exit: 1 })
      if (isOclifExit(err)) throw err
      this.error(`${phase === 'start' ? 'cannot start the node' : 'error while stopping the node'}: ${(err as Error).message}`, { exit: 1 })
    } finally {
      signals.dispose()
      if (temporary) await rm(home, { recursive: true, force: true })
    }
    this.exit(0)
  }
}

/** Block sync progress is printed at most this often (and once the sync reaches its target). */
const PROGRESS_EVERY_MS = 1000

/** `synced 1200/5000 blocks, 310 blocks/s`, at most once a second and at the target. */
export function throttleProgress(print: (line: string) => void, clock: () => number = Date.now): (p: SyncProgress) => void {
  let last = Number.NEGATIVE_INFINITY
  return (p) => {
    const t = clock()
    if (p.height < p.target && t - last < PROGRESS_EVERY_MS) return
    last = t
    print(`synced ${p.height}/${p.target} blocks, ${Math.round(p.blocksPerSecond)} blocks/s`)
  }
}

/** Resolves on the first SIGINT/SIGTERM; a second one calls `onRepeat`, a third `onForce`. */
function listenForStop(onRepeat: () => void, onForce: () => void): { stopRequested: Promise<NodeJS.Signals>; dispose(): void } {
  let count = 0
  let resolve!: (s: NodeJS.Signals) => void
  const stopRequested = new Promise<NodeJS.Signals>((r) => (resolve = r))
  const handler = (signal: NodeJS.Signals): void => {
    count++
    if (count === 1) resolve(signal)
    else if (count === 2) onRepeat()
    else onForce()
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    stopRequested,
    dispose() {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    },
  }
}

/** True for the errors oclif's this.error / this.exit throw (they carry `oclif.exit`). */
function isOclifExit(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'oclif' in err
}

/** Maps an EADDRINUSE from a listener to a ConfigError naming the flag of the address it tried. */
export function explainAddressInUse(err: unknown, config: NodeConfig): ConfigError | undefined {
  let e: unknown = err
  while (e && typeof e === 'object' && (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') e = (e as { cause?: unknown }).cause
  if (!e || typeof e !== 'object') return undefined
  const { port, address } = e as { port?: number; address?: string }
  const listeners: [string, HostPort | undefined][] = [
    ['json-rpc.address', config.jsonRpc.enable ? config.jsonRpc.address : undefined],
    ['json-rpc.ws-address', config.jsonRpc.enable ? config.jsonRpc.wsAddress : undefined],
    ['rpc.laddr', config.rpc.laddr],
    ['p2p.laddr', config.p2p.laddr],
  ]
  const hit = listeners.find(([, a]) => a !== undefined && a.port === port)
  const where = hit ? formatHostPort(hit[1]!) : `${address ?? ''}:${port ?? '?'}`
  return new ConfigError(
    hit ? `--${hit[0]}` : 'listen address',
    `${where} is already in use (is another node running?); choose another address${hit ? ` with --${hit[0]}` : ''} or stop the other process`,
  )
}

/** What the banner shows. */
export interface StartBannerInput {
  config: NodeConfig
  addresses: NodeAddresses
  /** nodectl's version. */
  version: string
  /** The home is a temporary directory deleted on exit. */
  temporaryHome: boolean
}

/** The Anvil-like text printed once the node listens. */
export function renderStartBanner({ config, addresses, version, temporaryHome }: StartBannerInput): string {
  const lines: string[] = ['', `nodectl ${version}${config.dev ? ' — development chain' : ''}`, '']
  const heading = (title: string): void => {
    lines.push(title, '='.repeat(title.length))
  }
  const row = (label: string, value: string): void => {
    lines.push(`${(label + ':').padEnd(20)}${value}`)
  }
  if (config.dev) {
    const accounts = devAccounts()
    const funded = readGenesisBalances(config)
    heading('Available Accounts')
    for (const a of accounts) lines.push(`(${a.index}) ${a.address} (${formatEther(funded.get(a.address.toLowerCase()) ?? 0n)} ETH)`)
    lines.push('')
    heading('Private Keys')
    for (const a of accounts) lines.push(`(${a.index}) ${a.privateKey}`)
    lines.push('')
    heading('Wallet')
    row('Mnemonic', DEV_MNEMONIC)
    row('Derivation path', ETH_DERIVATION_PREFIX + '<i>')
    row('Key store', `${config.paths.keystoreDir} (passphrase "")`)
    row('Unlocked', 'all 10 accounts, until the node stops: eth_accounts lists them, and eth_sendTransaction, eth_sign,')
    lines.push(`${''.padEnd(20)}a JsonRpcSigner or \`cast send --unlocked --from <account>\` sign with them at once`)
    lines.push('')
  }
  heading('Chain')
  row('Chain ID', config.chainId)
  row('EVM chain ID', config.evmChainId.toString())
  row('Home', config.home + (temporaryHome ? ' (temporary, deleted on exit)' : ''))
  for (const v of config.genesis.validators)
    row('Validator', `${bytesToUpperHex(v.address)} ${v.name ? `"${v.name}" ` : ''}(power ${v.power})`)
  row('Block gas limit', config.genesis.consensusParams.block.maxGas.toString())
  row('Min gas price', `${config.minGasPrice} wei`)
  lines.push('')
  heading('Blocks')
  row('Production', describeBlockProduction(config.consensus))
  row('Timeouts', describeTimeouts(config.consensus))
  lines.push('')
  heading('Listening')
  row('EVM JSON-RPC', addresses.jsonRpcHttp ? `${addresses.jsonRpcHttp} (${config.jsonRpc.api.join(', ')})` : 'off (--json-rpc.enable)')
  row('EVM WebSocket', addresses.jsonRpcWs ?? 'off (--json-rpc.enable)')
  const comet = addresses.cometRpc?.replace(/^tcp:\/\//, '')
  row('Consensus RPC', comet ? `http://${comet} (WebSocket ws://${comet}/websocket)` : 'off (--rpc.laddr)')
  lines.push('', 'Press Ctrl-C to stop.', '')
  return lines.join('\n')
}

/** Genesis balances by lower-case address (app_state.evm.accounts, checked by config/genesis.ts). */
function readGenesisBalances(config: NodeConfig): Map<string, bigint> {
  const evm = config.genesis.appState.evm as { accounts?: { address: string; balance: string }[] } | undefined
  return new Map((evm?.accounts ?? []).map((a) => [a.address.toLowerCase(), BigInt(a.balance)]))
}

/** Wei as ether, trailing zeros of the fraction dropped (10^22 → "10000", 1.5 × 10^18 → "1.5"). */
export function formatEther(wei: bigint): string {
  const whole = wei / WEI_PER_ETHER
  const frac = (wei % WEI_PER_ETHER).toString().padStart(18, '0').replace(/0+$/, '')
  return frac ? `${whole}.${frac}` : whole.toString()
}

/** When blocks are proposed, in CometBFT's terms (`WaitForTxs` = !create_empty_blocks || interval > 0). */
export function describeBlockProduction(c: ConsensusConfig): string {
  const waitsForTxs = !c.createEmptyBlocks || c.createEmptyBlocksInterval > 0
  if (!waitsForTxs)
    return `a block every height, ${c.skipTimeoutCommit ? 'the next one as soon as all precommits are in' : `${formatDuration(c.timeoutCommit)} after the previous commit`}`
  if (c.createEmptyBlocksInterval > 0)
    return `as soon as transactions wait; an empty block after ${formatDuration(c.createEmptyBlocksInterval)} without any`
  return 'only when transactions wait'
}

function describeTimeouts(c: ConsensusConfig): string {
  const d = formatDuration
  return `propose ${d(c.timeoutPropose)} (+${d(c.timeoutProposeDelta)}/round), prevote ${d(c.timeoutPrevote)}, precommit ${d(c.timeoutPrecommit)}, commit ${d(c.timeoutCommit)}${c.skipTimeoutCommit ? ' (skipped once all precommits are in)' : ''}`
}
