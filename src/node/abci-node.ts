/**
 * The composition root of `nodectl start --abci`: the EVM application served to an external CometBFT
 * over ABCI (docs/abci.md), with the EVM JSON-RPC over the application's own store, and no engine, p2p
 * or consensus RPC of ours (CometBFT has them). Transactions EVM clients send go to CometBFT's
 * `broadcast_tx_sync` at the home's `[rpc] laddr`, which CometBFT reads from the same config.toml.
 */
import { mkdir } from 'node:fs/promises'
import { AbciServer } from '../abci/server.js'
import { validatorAddress } from '../comet/validator-set.js'
import { urlOfListenAddress } from '../config/listen-address.js'
import type { NodeConfig } from '../config/node-config.js'
import { Database } from '../db/database.js'
import { loadValidatorKey } from '../keystore/validator-key.js'
import { checkTxFee } from '../txpool/index.js'
import { TxPoolError, TxPoolRejection, txPoolErrors } from '../txpool/tx-pool-error.js'
import { TypedEmitter } from '../utils/events.js'
import type { Logger } from '../utils/logger.js'
import { AbciApp } from './abci-app.js'
import { openAppParts, type AppParts } from './app-parts.js'
import { CometClient } from './comet-client.js'
import { EvmRpc } from './evm-rpc.js'
import type { NodeEventMap, NodeEvents } from './node-events.js'
import type { NodeOptions } from './node.js'

/** How often CometBFT's sync status and peer count are read for eth_syncing and net_peerCount. */
const COMET_STATUS_EVERY_MS = 2000

/** Where the running application listens. */
export interface AbciNodeAddresses {
  /** e.g. tcp://127.0.0.1:26658 or unix:///path. */
  abci: string
  /** CometBFT's RPC, where transactions are sent. */
  cometRpc: string
  jsonRpcHttp: string | undefined
  jsonRpcWs: string | undefined
}

export class AbciNode {
  private server: AbciServer | undefined
  private evmRpc: EvmRpc | undefined
  private statusTimer: NodeJS.Timeout | undefined
  private comet = { catchingUp: false, peers: 0 }
  private stopping: Promise<void> | undefined
  private resolveHalted: (err: Error) => void = () => {}
  /** Resolves, once the node has stopped, with the application error that made it stop; never otherwise. */
  readonly halted = new Promise<Error>((resolve) => (this.resolveHalted = resolve))
  /** Committed heights (`EvmBlock`), as under our engine. */
  readonly events: NodeEvents = new TypedEmitter<NodeEventMap>()

  private constructor(
    readonly config: NodeConfig,
    private readonly log: Logger,
    private readonly db: Database,
    private readonly parts: AppParts,
    private readonly client: CometClient,
    private readonly options: NodeOptions,
  ) {}

  static async create(config: NodeConfig, log: Logger, options: NodeOptions = {}): Promise<AbciNode> {
    if (!config.rpc.laddr) {
      throw new Error("config.toml [rpc] laddr is empty: nodectl start --abci sends transactions to CometBFT's RPC there")
    }
    const client = new CometClient(urlOfListenAddress('http', config.rpc.laddr))
    await mkdir(config.paths.dataDir, { recursive: true })
    const db = new Database({ path: config.paths.db })
    await db.open()
    try {
      const parts = await openAppParts(config, db, log, options)
      return new AbciNode(config, log, db, parts, client, options)
    } catch (err) {
      await db.close()
      throw err
    }
  }

  /** Starts the EVM JSON-RPC, then the ABCI listener CometBFT connects to. */
  async start(): Promise<AbciNodeAddresses> {
    const { config, parts } = this
    const { app, pool, miner, accounts } = parts
    const validator = await loadValidatorKey(config.paths.privValidatorKey)
    const addresses: AbciNodeAddresses = { abci: '', cometRpc: this.client.url, jsonRpcHttp: undefined, jsonRpcWs: undefined }
    try {
      if (config.jsonRpc.enable) {
        this.evmRpc = await EvmRpc.start({
          config,
          log: this.log,
          app,
          events: this.events,
          pool,
          accounts,
          coinbase: () => miner.etherbase ?? app.feeRecipientOf(validatorAddress(validator.publicKey)),
          syncStatus: () => ({ catchingUp: this.comet.catchingUp, progress: undefined }),
          peerCount: () => this.comet.peers,
          miner,
          submitTx: (raw) => this.submitTx(raw),
          overrides: this.options.jsonRpc,
        })
        addresses.jsonRpcHttp = this.evmRpc.httpUrl
        addresses.jsonRpcWs = this.evmRpc.wsUrl
      }
      const abciApp = new AbciApp({ app, pool, events: this.events, genesis: config.genesis })
      this.server = await AbciServer.start(abciApp, {
        address: config.abci.laddr,
        snapshots: parts.snapshots,
        log: this.log.child({ module: 'abci' }),
        onFatal: (err) => void this.halt(err),
      })
      addresses.abci = this.server.url
    } catch (err) {
      await this.stop()
      throw err
    }
    this.statusTimer = setInterval(() => void this.readCometStatus(), COMET_STATUS_EVERY_MS)
    this.statusTimer.unref()
    this.log.info('ABCI application started', { abci: addresses.abci, height: app.latestHeight() })
    return addresses
  }

  /**
   * eth_sendRawTransaction: the RPC's fee cap, then CometBFT's mempool and CheckTx. CometBFT answers a
   * transaction it has seen with "tx already exists in cache", also once a block included it; geth says
   * "nonce too low" for a mined one, so that is the answer when this application has its receipt.
   */
  private async submitTx(raw: Uint8Array): Promise<Uint8Array> {
    const { app } = this.parts
    const cap = this.config.jsonRpc.txFeeCap
    if (cap > 0) checkTxFee(await app.decodeTxOffThread(raw), cap)
    try {
      return await this.client.broadcastTx(raw)
    } catch (err) {
      if (!(err instanceof TxPoolError) || err.reason !== TxPoolRejection.AlreadyKnown) throw err
      const tx = await app.decodeTxOffThread(raw)
      if (!(await app.getReceipt(tx.hash))) throw err
      throw txPoolErrors.nonceTooLow(tx.fromHex, tx.nonce, (await app.getAccount(tx.from)).nonce)
    }
  }

  private async readCometStatus(): Promise<void> {
    try {
      this.comet = await this.client.syncAndPeers()
    } catch (err) {
      this.log.debug('cannot read CometBFT status', { err })
    }
  }

  private async halt(err: Error): Promise<void> {
    this.log.error('the application failed, stopping', { err })
    await this.stop().catch((stopErr: unknown) => this.log.error('error while stopping', { err: stopErr }))
    this.resolveHalted(err)
  }

  /** Stops the listeners, finishes the application's current write, closes the database. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown()
    return this.stopping
  }

  private async shutdown(): Promise<void> {
    clearInterval(this.statusTimer)
    await this.server?.close()
    await this.evmRpc?.close()
    await this.parts.accounts.stop()
    await this.parts.snapshots.close()
    await this.parts.app.close()
    await this.db.close()
    this.log.info('ABCI application stopped')
  }

  /** The application parts, for tests. */
  get components(): Readonly<AppParts> {
    return this.parts
  }
}
