/**
 * Creates a home (`nodectl init`, `start --dev`): the commented config.toml and app.toml, a genesis
 * with this node as the one validator, the validator and node keys, the empty sign state, the JWT
 * secret and the key-store folder.
 */
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { randomBytes } from '../crypto/index.js'
import { DEV_ACCOUNT_BALANCE_WEI, devAccounts } from '../keystore/dev-accounts.js'
import { generateKey, nodeIdOf, saveNodeKey, saveValidatorKey, type ValidatorKey } from '../keystore/validator-key.js'
import { bytesToBase64, bytesToHex, bytesToUpperHex } from '../primitives/hex.js'
import { ConfigError } from '../utils/errors.js'
import { pathExists } from '../utils/files.js'
import type { Timestamp } from '../utils/time.js'
import { DEFAULT_CHAIN_ID, DEV_CHAIN_ID, parseChainId } from './chain-id.js'
import { defaultNodeSettings, devNodeSettings, type NodeSettings } from './defaults.js'
import { createGenesis, saveGenesis, type GenesisAccount, type GenesisDoc } from './genesis.js'
import { homePaths, resolveHome } from './home.js'
import type { HomePaths } from './node-config.js'
import { renderAppToml, renderConfigToml } from './render-toml.js'
import { cometbftKeys, type CometbftHomeOptions } from './cometbft-keys.js'
import { formatSocketAddress } from './listen-address.js'
import { readGenesisBalances } from './genesis-accounts.js'

/** Secret files (keys, sign state, JWT secret): owner read/write only. */
const SECRET_FILE_MODE = 0o600
/** Directories holding secrets (config/, data/, keystore/): owner only, as CometBFT and geth. */
const PRIVATE_DIR_MODE = 0o700
/** Public files (config.toml, app.toml, genesis.json). */
const PUBLIC_FILE_MODE = 0o644
/** Bytes of the HS256 JWT secret (geth's `jwtsecret`: 32). */
const JWT_SECRET_BYTES = 32

/** Options of {@link initHome}. */
export interface InitHomeOptions {
  /** Home to create. */
  home: string
  /** Node name written to config.toml and used as the validator's name in genesis. */
  moniker: string
  /** Default nodectl_9000-1. */
  chainId?: string
  /** Replace an initialised home (its config, keys, genesis and chain data; the key store is kept) (default false). */
  overwrite?: boolean
  /** Genesis accounts (default none). */
  accounts?: GenesisAccount[]
  /** Genesis validator admin (default the zero address). */
  validatorAdmin?: string
  /** Values written to the TOML files (default the defaults, with `moniker`). */
  settings?: NodeSettings
  /** Use this genesis instead of creating one (multi-validator testnets); chainId, accounts and validatorAdmin are then ignored. */
  genesis?: GenesisDoc
  /** Validator key to write (default a new one). */
  validatorKey?: ValidatorKey
  /** Node (p2p) key to write (default a new one). */
  nodeKey?: ValidatorKey
  /** Genesis time (default now). */
  genesisTime?: Timestamp
  /**
   * Write the home for a stock CometBFT too (`--engine cometbft`): config.toml gets `proxy_app` (= app.toml
   * `[abci] laddr`), `abci = "socket"`, and for a local network CometBFT's loopback p2p keys.
   */
  cometbft?: Omit<CometbftHomeOptions, 'proxyApp'>
}

/** What {@link initHome} created. */
export interface InitHomeResult {
  /** Absolute home directory. */
  home: string
  /** Where every file went. */
  paths: HomePaths
  /** Node name. */
  moniker: string
  /** Chain id of the genesis written. */
  chainId: string
  /** Its EIP-155 chain id. */
  evmChainId: bigint
  /** Lower-case hex node id (for `<node id>@host:port` peer addresses). */
  nodeId: string
  /** Validator address, upper-case hex (CometBFT). */
  validatorAddress: string
  /** Validator ed25519 public key, base64. */
  validatorPubKey: string
  /** The genesis written. */
  genesis: GenesisDoc
  /** The settings config.toml and app.toml were rendered from. */
  settings: NodeSettings
}

/** Thrown when the home already holds a genesis and `overwrite` is not set. */
export class HomeExistsError extends Error {
  constructor(
    /** The home that was refused. */
    readonly home: string,
  ) {
    super(
      `${home} is already initialised (config/genesis.json exists): pass --overwrite to replace its configuration, keys, genesis and chain data`,
    )
    this.name = 'HomeExistsError'
  }
}

/** True when `home` holds config/genesis.json. */
export async function isHomeInitialised(home: string): Promise<boolean> {
  return pathExists(homePaths(resolveHome(home, {})).genesis)
}

/** Writes a new home; refuses an initialised one unless `overwrite`. */
export async function initHome(opts: InitHomeOptions): Promise<InitHomeResult> {
  const home = resolveHome(opts.home, {})
  const settings = structuredClone(opts.settings ?? defaultNodeSettings(opts.moniker))
  settings.moniker = opts.moniker
  const paths = homePaths(home, settings.files)
  if (!opts.overwrite && ((await pathExists(paths.genesis)) || (await pathExists(homePaths(home).genesis)))) throw new HomeExistsError(home)

  const chainId = opts.genesis?.chainId ?? opts.chainId ?? DEFAULT_CHAIN_ID
  try {
    parseChainId(chainId)
  } catch (err) {
    throw new ConfigError('--chain-id', (err as Error).message)
  }
  const validatorKey = opts.validatorKey ?? generateKey()
  const nodeKey = opts.nodeKey ?? generateKey()
  const genesis =
    opts.genesis ??
    createGenesis({
      chainId,
      validators: [{ pubKey: validatorKey.publicKey, name: opts.moniker }],
      accounts: opts.accounts,
      validatorAdmin: opts.validatorAdmin,
      genesisTime: opts.genesisTime,
    })

  for (const dir of [paths.configDir, paths.dataDir, paths.keystoreDir]) {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
    await chmod(dir, PRIVATE_DIR_MODE)
  }
  if (opts.overwrite) {
    // The old chain's blocks, state and WAL belong to the old genesis.
    await rm(paths.db, { recursive: true, force: true })
    await rm(paths.wal, { force: true })
  }
  // Independent files, written side by side (one after the other cost `--dev` about 20 ms of start-up).
  await Promise.all([
    writeFileWithMode(
      paths.configToml,
      renderConfigToml(
        settings,
        opts.cometbft ? cometbftKeys({ ...opts.cometbft, proxyApp: formatSocketAddress(settings.abci.laddr) }) : {},
      ),
      PUBLIC_FILE_MODE,
    ),
    writeFileWithMode(paths.appToml, renderAppToml(settings), PUBLIC_FILE_MODE),
    saveGenesis(paths.genesis, genesis).then(() => chmod(paths.genesis, PUBLIC_FILE_MODE)),
    saveValidatorKey(paths.privValidatorKey, validatorKey).then(() => chmod(paths.privValidatorKey, SECRET_FILE_MODE)),
    saveNodeKey(paths.nodeKey, nodeKey).then(() => chmod(paths.nodeKey, SECRET_FILE_MODE)),
    // CometBFT's empty FilePVLastSignState: nothing signed yet.
    writeFileWithMode(paths.privValidatorState, JSON.stringify({ height: '0', round: 0, step: 0 }, null, 2) + '\n', SECRET_FILE_MODE),
    // geth writes the secret as 0x-prefixed hex without a newline.
    writeFileWithMode(paths.jwtSecret, bytesToHex(randomBytes(JWT_SECRET_BYTES)), SECRET_FILE_MODE),
  ])

  return {
    home,
    paths,
    moniker: opts.moniker,
    chainId: genesis.chainId,
    evmChainId: genesis.evmChainId,
    nodeId: nodeIdOf(nodeKey),
    validatorAddress: bytesToUpperHex(validatorKey.address),
    validatorPubKey: bytesToBase64(validatorKey.publicKey),
    genesis,
    settings,
  }
}

/** Options of {@link initDevHome}. */
export interface InitDevHomeOptions {
  /** Default "dev". */
  moniker?: string
  /** Default false. */
  overwrite?: boolean
  /** Values written to the TOML files (default the `--dev` preset). */
  settings?: NodeSettings
  /** Also for a stock CometBFT (see InitHomeOptions.cometbft): a dev chain under `nodectl start --abci`. */
  cometbft?: InitHomeOptions['cometbft']
}

/**
 * Writes a `--dev` home: chain id nodectl_31337-1, the 10 dev accounts funded with 10,000 ether
 * each, dev account 0 as validator admin, and the dev preset written into config.toml and app.toml.
 */
export async function initDevHome(home: string, opts: InitDevHomeOptions = {}): Promise<InitHomeResult> {
  const accounts = devAccounts()
  const moniker = opts.moniker ?? 'dev'
  return initHome({
    home,
    moniker,
    chainId: DEV_CHAIN_ID,
    overwrite: opts.overwrite,
    accounts: accounts.map((a) => ({ address: a.address, balance: DEV_ACCOUNT_BALANCE_WEI })),
    validatorAdmin: accounts[0]!.address,
    settings: opts.settings ?? devNodeSettings(moniker),
    ...(opts.cometbft ? { cometbft: opts.cometbft } : {}),
  })
}

/** The genesis balances of the dev accounts (lower-case address → wei): read until all are found, so cheap when they come first. */
export function readDevBalances(genesis: GenesisDoc): Promise<Map<string, bigint>> {
  return readGenesisBalances(
    genesis,
    devAccounts().map((a) => a.address),
  )
}

/**
 * True when the genesis funds every dev account (`balances` from {@link readDevBalances}), as the
 * genesis of {@link initDevHome} (and of `testnet init-files`) does: a chain whose money the publicly
 * known dev keys control already, so `start --dev` may unlock them and write their key files. A chain
 * made by `nodectl init` funds no dev account, and its key store must never receive their keys.
 */
export function fundsDevAccounts(balances: ReadonlyMap<string, bigint>): boolean {
  return devAccounts().every((a) => (balances.get(a.address.toLowerCase()) ?? 0n) > 0n)
}

async function writeFileWithMode(path: string, text: string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE })
  await writeFile(path, text, { mode })
  await chmod(path, mode)
}
