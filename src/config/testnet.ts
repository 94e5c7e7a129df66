/**
 * `nodectl testnet init-files`: the homes `node0…node{N+M-1}` of a local network, as CometBFT's
 * `testnet` command writes them: one shared genesis (the N validators with equal power, the dev
 * accounts funded as `--dev` funds them), distinct loopback ports per node and `[p2p] persistent_peers`
 * naming every other node.
 *
 * Ports: node i listens on P + 10·i + {0: JSON-RPC HTTP, 1: JSON-RPC WebSocket, 2: consensus RPC, 3: p2p,
 * 4: ABCI (`nodectl start --abci`, CometBFT's proxy_app)}, P being the starting port (default 26600), so
 * node0 uses 26600-26604 and node1 26610-26614.
 */
import { readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { DEV_ACCOUNT_BALANCE_WEI, devAccounts } from '../keystore/dev-accounts.js'
import { generateKey, nodeIdOf } from '../keystore/validator-key.js'
import { bytesToUpperHex } from '../primitives/hex.js'
import { ConfigError } from '../utils/errors.js'
import { pathExists } from '../utils/files.js'
import { DEFAULT_CHAIN_ID, parseChainId } from './chain-id.js'
import { defaultNodeSettings, devNodeSettings, type NodeSettings } from './defaults.js'
import { createGenesis, DEFAULT_VALIDATOR_POWER } from './genesis.js'
import { initHome } from './init-home.js'
import type { Engine } from './cometbft-keys.js'
import { formatHostPort } from './listen-address.js'

/** First port of node0 (default of `--starting-port`). */
export const DEFAULT_TESTNET_STARTING_PORT = 26600
/** Ports reserved per node: node i starts at P + 10·i. */
export const TESTNET_PORTS_PER_NODE = 10
/** Offsets of each listener within a node's block of ports. */
export const TESTNET_PORT_OFFSETS = { jsonRpc: 0, webSocket: 1, cometRpc: 2, p2p: 3, abci: 4, metrics: 5 } as const
/** The highest offset: the last node's last port must be a TCP port too. */
const LAST_PORT_OFFSET = Math.max(...Object.values(TESTNET_PORT_OFFSETS))
/** Every node listens on loopback only. */
const TESTNET_HOST = '127.0.0.1'
/** Highest TCP port. */
const MAX_PORT = 65_535

/** Options of {@link initTestnetFiles}. */
export interface TestnetOptions {
  /** Folder that receives `node0`, `node1`… */
  outputDir: string
  /** Number of validators, ≥ 1. */
  validators: number
  /** Number of full nodes that are not validators (default 0). */
  nonValidators?: number
  /** Default nodectl_9000-1. */
  chainId?: string
  /** Port P of the scheme above (default {@link DEFAULT_TESTNET_STARTING_PORT}). */
  startingPort?: number
  /** Write into a non-empty output folder, replacing the homes it holds (default false). */
  overwrite?: boolean
  /** Homes a stock CometBFT runs too (`--engine cometbft`, with `nodectl start --abci`); default nodectl. */
  engine?: Engine
}

/** One home written by {@link initTestnetFiles}. */
export interface TestnetNode {
  /** `node<i>`. */
  moniker: string
  /** Absolute home directory. */
  home: string
  /** Lower-case hex node id. */
  nodeId: string
  /** Validator address (upper-case hex); "" for a node that is not a validator. */
  validatorAddress: string
  /** JSON-RPC HTTP URL, `http://127.0.0.1:<P + 10·i>`. */
  jsonRpc: string
  /** JSON-RPC WebSocket URL, `ws://127.0.0.1:<P + 10·i + 1>`. */
  webSocket: string
  /** Consensus RPC URL, `http://127.0.0.1:<P + 10·i + 2>`. */
  cometRpc: string
  /** p2p listen address, `tcp://127.0.0.1:<P + 10·i + 3>`. */
  p2p: string
  /** ABCI address of `nodectl start --abci` (CometBFT's proxy_app), `tcp://127.0.0.1:<P + 10·i + 4>`. */
  abci: string
}

/** What {@link initTestnetFiles} wrote. */
export interface TestnetResult {
  /** Absolute output folder. */
  outputDir: string
  /** Chain id of the shared genesis. */
  chainId: string
  /** node0, node1…: the validators first. */
  nodes: TestnetNode[]
}

/** Thrown when the output folder is not empty and `overwrite` is not set. */
export class OutputDirNotEmptyError extends Error {
  constructor(readonly dir: string) {
    super(`${dir} is not empty: pass --overwrite to replace the homes it holds`)
    this.name = 'OutputDirNotEmptyError'
  }
}

/** The port of `listener` on node `index`. */
export function testnetPort(startingPort: number, index: number, listener: keyof typeof TESTNET_PORT_OFFSETS): number {
  return startingPort + TESTNET_PORTS_PER_NODE * index + TESTNET_PORT_OFFSETS[listener]
}

/** Writes the homes; see the file comment. */
export async function initTestnetFiles(opts: TestnetOptions): Promise<TestnetResult> {
  const outputDir = resolve(opts.outputDir)
  const nonValidators = opts.nonValidators ?? 0
  const startingPort = opts.startingPort ?? DEFAULT_TESTNET_STARTING_PORT
  if (!Number.isSafeInteger(opts.validators) || opts.validators < 1)
    throw new ConfigError('--validators', `want at least 1, got ${opts.validators}`)
  if (!Number.isSafeInteger(nonValidators) || nonValidators < 0)
    throw new ConfigError('--non-validators', `want 0 or more, got ${nonValidators}`)
  const count = opts.validators + nonValidators
  const lastPort = startingPort + TESTNET_PORTS_PER_NODE * (count - 1) + LAST_PORT_OFFSET
  if (!Number.isSafeInteger(startingPort) || startingPort < 1 || lastPort > MAX_PORT)
    throw new ConfigError('--starting-port', `want ports ${startingPort}..${lastPort} within 1..${MAX_PORT}`)
  const chainId = opts.chainId ?? DEFAULT_CHAIN_ID
  try {
    parseChainId(chainId)
  } catch (err) {
    throw new ConfigError('--chain-id', (err as Error).message)
  }
  if (!opts.overwrite && (await isNonEmptyDir(outputDir))) throw new OutputDirNotEmptyError(outputDir)

  const validatorKeys = Array.from({ length: count }, () => generateKey())
  const nodeKeys = Array.from({ length: count }, () => generateKey())
  const accounts = devAccounts()
  const genesis = createGenesis({
    chainId,
    validators: validatorKeys
      .slice(0, opts.validators)
      .map((key, i) => ({ pubKey: key.publicKey, power: DEFAULT_VALIDATOR_POWER, name: `node${i}` })),
    accounts: accounts.map((a) => ({ address: a.address, balance: DEV_ACCOUNT_BALANCE_WEI })),
    validatorAdmin: accounts[0]!.address,
  })
  const peers = nodeKeys.map((key, i) => `${nodeIdOf(key)}@${hostPortOf(startingPort, i, 'p2p')}`)

  const nodes: TestnetNode[] = []
  for (let i = 0; i < count; i++) {
    const moniker = `node${i}`
    const settings = nodeSettings(moniker, startingPort, i, peers)
    const home = join(outputDir, moniker)
    const validatorKey = validatorKeys[i]!
    await initHome({
      home,
      moniker,
      genesis,
      settings,
      validatorKey,
      nodeKey: nodeKeys[i]!,
      overwrite: opts.overwrite,
      ...(opts.engine === 'cometbft' ? { cometbft: { loopbackNetwork: true } } : {}),
    })
    nodes.push({
      moniker,
      home,
      nodeId: nodeIdOf(nodeKeys[i]!),
      validatorAddress: i < opts.validators ? bytesToUpperHex(validatorKey.address) : '',
      jsonRpc: `http://${hostPortOf(startingPort, i, 'jsonRpc')}`,
      webSocket: `ws://${hostPortOf(startingPort, i, 'webSocket')}`,
      cometRpc: `http://${hostPortOf(startingPort, i, 'cometRpc')}`,
      p2p: `tcp://${hostPortOf(startingPort, i, 'p2p')}`,
      abci: `tcp://${hostPortOf(startingPort, i, 'abci')}`,
    })
  }
  return { outputDir, chainId: genesis.chainId, nodes }
}

/**
 * Node `index`'s files: the `--dev` JSON-RPC exposure (every namespace, loopback only) with CometBFT's
 * default consensus timeouts (a network needs its commit wait), its ports, and every other node as a peer.
 */
function nodeSettings(moniker: string, startingPort: number, index: number, peers: string[]): NodeSettings {
  const settings = devNodeSettings(moniker)
  settings.consensus = defaultNodeSettings(moniker).consensus
  settings.jsonRpc.address = { host: TESTNET_HOST, port: testnetPort(startingPort, index, 'jsonRpc') }
  settings.jsonRpc.wsAddress = { host: TESTNET_HOST, port: testnetPort(startingPort, index, 'webSocket') }
  settings.rpc.laddr = { host: TESTNET_HOST, port: testnetPort(startingPort, index, 'cometRpc') }
  settings.p2p.laddr = { host: TESTNET_HOST, port: testnetPort(startingPort, index, 'p2p') }
  settings.abci.laddr = { host: TESTNET_HOST, port: testnetPort(startingPort, index, 'abci') }
  // Metrics stay off; when turned on, each node has its own port.
  settings.instrumentation.prometheusListenAddr = { host: TESTNET_HOST, port: testnetPort(startingPort, index, 'metrics') }
  settings.p2p.persistentPeers = peers.filter((_, i) => i !== index)
  return settings
}

function hostPortOf(startingPort: number, index: number, listener: keyof typeof TESTNET_PORT_OFFSETS): string {
  return formatHostPort({ host: TESTNET_HOST, port: testnetPort(startingPort, index, listener) })
}

async function isNonEmptyDir(dir: string): Promise<boolean> {
  return (await pathExists(dir)) && (await readdir(dir)).length > 0
}
