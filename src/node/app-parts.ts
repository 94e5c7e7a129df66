/**
 * The parts every node has whichever engine drives it (node.ts, abci-node.ts): the EVM application over
 * the node's database, the transaction pool in front of it, the miner settings and the key store.
 */
import { join } from 'node:path'
import type { NodeConfig } from '../config/node-config.js'
import { pruningWindow } from '../config/pruning.js'
import type { Database } from '../db/database.js'
import { EvmApplication } from '../evm/app.js'
import { StateSnapshots } from '../evm/snapshots/state-snapshots.js'
import { ContractConsole } from '../evm/tracing/contract-console.js'
import { parseAppState, readGenesisAccounts } from '../evm/genesis.js'
import { LIGHT_SCRYPT, STANDARD_SCRYPT } from '../keystore/key-file.js'
import type { UnlockClock } from '../keystore/unlock-manager.js'
import type { ScryptParams } from '../crypto/index.js'
import { hexToBytes } from '../primitives/hex.js'
import { TxPool, getTxPoolOptions, type TxPoolMetrics } from '../txpool/index.js'
import type { Logger } from '../utils/logger.js'
import { FEE_RECIPIENT_FILE, MinerSettings } from './miner-settings.js'
import { NodeAccounts } from './node-accounts.js'

/** Settings that are not configuration keys (NodeOptions). */
export interface AppPartsOptions {
  /**
   * The call workers' compiled script (see EvmApplicationOptions.callWorkers): tests, which run the
   * TypeScript sources, build one; default the one next to the compiled application.
   */
  callWorkerScript?: URL
  /** The key store and unlocked accounts. */
  accounts?: {
    /** Time source of unlock expiry (default the system clock): tests advance a fake one instead of sleeping. */
    clock?: UnlockClock
    /** scrypt strength of key files the node writes (default: light under `--dev`, a throw-away home; else geth's standard). */
    scrypt?: ScryptParams
  }
}

export interface AppParts {
  app: EvmApplication
  pool: TxPool
  miner: MinerSettings
  /** The key store (`<home>/keystore`) and the unlocked accounts. */
  accounts: NodeAccounts
  /** Contract console.log printing, on a dev chain only. */
  contractConsole: ContractConsole | undefined
  /** State-sync snapshots: taken after Commits (`[state-sync]`), served and restored as the engine asks (a SnapshotProvider). */
  snapshots: StateSnapshots
}

/**
 * The blocks the state-sync snapshots still listed need kept, as the Cosmos SDK bounds the retain height:
 * a node that restores the oldest one (snapshot-interval × snapshot-keep-recent heights back) block-syncs
 * from the height above it. Keeping every snapshot (keep-recent 0) sets no bound, as there.
 */
function snapshotRetainFloor({ interval, keepRecent }: NodeConfig['snapshots']): ((height: number) => number) | undefined {
  if (interval <= 0 || keepRecent <= 0) return undefined
  return (height) => height - interval * keepRecent
}

/** Builds and opens the application, then the pool (counting through `poolMetrics` when given), miner settings and key store around it. */
export async function openAppParts(
  config: NodeConfig,
  db: Database,
  log: Logger,
  options: AppPartsOptions,
  poolMetrics?: TxPoolMetrics,
): Promise<AppParts> {
  const miner = await MinerSettings.load({
    appTomlPath: config.paths.appToml,
    minGasPriceFromFlag: config.minGasPriceFromFlag,
    feeRecipientPath: join(config.paths.dataDir, FEE_RECIPIENT_FILE),
    logger: log.child({ module: 'miner' }),
  })
  const pruning = pruningWindow(config.pruning)
  const contractConsole = config.dev ? new ContractConsole(log.child({ module: 'console' })) : undefined
  const app = new EvmApplication({
    db,
    chainId: config.chainId,
    evmChainId: config.evmChainId,
    genesis: { ...parseAppState(config.genesis.appState), accounts: readGenesisAccounts(config.genesis) },
    minGasPrice: config.minGasPrice,
    proposerFeeRecipient: () => miner.etherbase,
    allowUnprotectedTxs: config.jsonRpc.allowUnprotectedTxs,
    maxTxBytes: config.mempool.maxTxBytes,
    dev: config.dev,
    minRetainBlocks: config.minRetainBlocks,
    retainFloor: snapshotRetainFloor(config.snapshots),
    calls: { gasCap: config.jsonRpc.gasCap, evmTimeoutMs: config.jsonRpc.evmTimeout },
    trieNodeCacheBytes: config.evm.trieNodeCacheMb * 2 ** 20,
    ...(pruning ? { pruning } : {}),
    ...(contractConsole ? { contractConsole } : {}),
    devRules: { setCode: config.dev, unlimitedCodeSize: config.evm.disableCodeSizeLimit },
    callWorkers: { count: config.jsonRpc.callWorkers, script: options.callWorkerScript },
    logger: log.child({ module: 'evm' }),
    committed: (head) => snapshots.committed(head),
  })
  const snapshots = new StateSnapshots({
    db,
    app,
    dir: join(config.paths.dataDir, 'snapshots'),
    interval: config.snapshots.interval,
    keepRecent: config.snapshots.keepRecent,
    pinState: (height) => {
      app.pinState(height)
      return () => app.unpinState(height)
    },
    logger: log,
  })
  await app.open()
  const pool = new TxPool({
    decode: (raw) => app.decodeTxOffThread(raw),
    app,
    state: {
      getAccount: async (address) => {
        const a = await app.getAccount(hexToBytes(address))
        return { nonce: a.nonce, balance: a.balance }
      },
    },
    nextBaseFee: () => app.nextBaseFee(),
    options: { ...getTxPoolOptions(config), blockGasLimit: app.blockGasLimit() },
    logger: log.child({ module: 'txpool' }),
    ...(poolMetrics ? { metrics: poolMetrics } : {}),
  })
  const accounts = new NodeAccounts({
    dir: config.paths.keystoreDir,
    scrypt: options.accounts?.scrypt ?? (config.dev ? LIGHT_SCRYPT : STANDARD_SCRYPT),
    ...(options.accounts?.clock ? { clock: options.accounts.clock } : {}),
    logger: log.child({ module: 'accounts' }),
  })
  return { app, pool, miner, accounts, contractConsole, snapshots }
}
