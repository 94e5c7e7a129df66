/**
 * The EVM JSON-RPC of a node (HTTP and WebSocket, with polled filters and eth_subscribe), over the
 * application and the pool, whichever engine drives them: our own (node.ts) or CometBFT over ABCI
 * (abci-node.ts).
 */
import { FilterSystem, SubscriptionManager, createEthApi, type FilterOptions, type SubscriptionOptions } from '../api/eth/index.js'
import { createDebugApi } from '../api/debug/index.js'
import {
  DEV_NAMESPACES,
  ImpersonatedSender,
  createDevApi,
  createDevRefusals,
  type DevBackends,
  type ImpersonationBackend,
} from '../api/dev/index.js'
import { renderEvmApiError } from '../api/evm-errors.js'
import type { NodeConfig } from '../config/node-config.js'
import type { EvmApplication } from '../evm/app.js'
import { Dispatcher, HttpRpcServer, dispatcherOptionsFromConfig, httpRpcServerOptionsFromConfig } from '../rpc/index.js'
import { WsRpcServer, wsRpcServerOptionsFromConfig, type WsRpcServerOptions } from '../rpc/ws-server.js'
import { createCallerAuth, readJwtSecret } from '../rpc/caller-auth.js'
import { timeMethods, type MethodCallObserver } from '../rpc/timed-methods.js'
import type { TxPool } from '../txpool/tx-pool.js'
import type { Logger } from '../utils/logger.js'
import { NodeDebugBackend } from './debug-backend.js'
import { NodeEthBackend, type EthBackendDeps } from './eth-backend.js'
import type { NodeAccounts } from './node-accounts.js'

/** Settings tests shorten (production uses the defaults). */
export interface EvmRpcOverrides {
  /** Polling filters; `cap` defaults to `filter-cap`. */
  filters?: Partial<FilterOptions>
  /** The clock of filter expiry (ms, monotonic); `performance.now()` by default. Tests advance it by hand. */
  filterClock?: () => number
  /** eth_subscribe limits. */
  subscriptions?: Partial<SubscriptionOptions>
  /** WebSocket listener settings over those from `[json-rpc]`. */
  ws?: Partial<WsRpcServerOptions>
}

export interface EvmRpcDeps extends Omit<EthBackendDeps, 'txFeeCap'> {
  config: NodeConfig
  log: Logger
  app: EvmApplication
  pool: TxPool
  accounts: NodeAccounts
  /** Test settings of the listeners, filters and subscriptions. */
  overrides: EvmRpcOverrides | undefined
  /** The dev methods' backends (src/node/dev-*.ts), on a `--dev` node only; elsewhere those methods are refused. */
  dev?: DevRpcBackends
  /** Told of every call's outcome and duration (the `rpc_*` metrics); calls are not timed without one. */
  methodObserver?: MethodCallObserver
}

/** The dev backends as the node builds them: impersonation's sender is made here, over the EVM backend. */
export type DevRpcBackends = Omit<DevBackends, 'impersonation'> & { impersonation: ImpersonationBackend }

export class EvmRpc {
  private constructor(
    private readonly filters: FilterSystem,
    private readonly subscriptions: SubscriptionManager,
    private readonly http: HttpRpcServer | undefined,
    private readonly ws: WsRpcServer | undefined,
  ) {}

  /** e.g. http://127.0.0.1:8545. */
  get httpUrl(): string | undefined {
    return this.http?.url
  }

  /** e.g. ws://127.0.0.1:8546. */
  get wsUrl(): string | undefined {
    return this.ws?.url
  }

  /** Starts both listeners; on a failure closes what it started and throws. */
  static async start(deps: EvmRpcDeps): Promise<EvmRpc> {
    const { config, log, overrides = {} } = deps
    const backend = new NodeEthBackend({ ...deps, txFeeCap: config.jsonRpc.txFeeCap })
    const rpcLog = log.child({ module: 'json-rpc' })
    // The backend is also the event source of filters (HTTP and WebSocket) and subscriptions (WebSocket).
    const filters = new FilterSystem(
      backend,
      backend,
      config.jsonRpc,
      { cap: config.jsonRpc.filterCap, ...overrides.filters },
      overrides.filterClock,
    )
    const subscriptions = new SubscriptionManager(backend, backend, rpcLog, overrides.subscriptions)
    const debugBackend = new NodeDebugBackend({ app: deps.app, pool: deps.pool })
    const execution = { gasCap: config.jsonRpc.gasCap, timeout: config.jsonRpc.evmTimeout }
    const keyless = deps.dev ? new ImpersonatedSender(backend, deps.dev.impersonation, execution) : undefined
    const tables = [
      ...createEthApi(backend, config.jsonRpc, subscriptions, filters, deps.accounts, keyless),
      ...createDebugApi(debugBackend, {
        tracerConcurrency: config.jsonRpc.tracerConcurrency,
        traceResponseMaxSize: config.jsonRpc.traceResponseMaxSize,
      }),
      ...(deps.dev && keyless ? createDevApi({ ...deps.dev, impersonation: keyless }) : createDevRefusals()),
    ]
    const dispatcherOptions = dispatcherOptionsFromConfig(config.jsonRpc)
    // The refusals are heard whatever `api` lists: they say why the method is not there.
    if (!deps.dev) dispatcherOptions.namespaces = [...dispatcherOptions.namespaces, ...DEV_NAMESPACES]
    const served = deps.methodObserver ? timeMethods(tables, deps.methodObserver) : tables
    const dispatcher = new Dispatcher(served, dispatcherOptions, rpcLog, renderEvmApiError)
    let http: HttpRpcServer | undefined
    try {
      const auth = createCallerAuth(
        {
          secret: dispatcher.servesPrivateMethods ? await readJwtSecret(config.paths.jwtSecret, rpcLog) : undefined,
          trustLoopback: config.dev,
        },
        rpcLog,
      )
      http = await HttpRpcServer.start(dispatcher, { ...httpRpcServerOptionsFromConfig(config.jsonRpc), auth }, rpcLog)
      const ws = await WsRpcServer.start(dispatcher, { ...wsRpcServerOptionsFromConfig(config.jsonRpc), auth, ...overrides.ws }, rpcLog)
      return new EvmRpc(filters, subscriptions, http, ws)
    } catch (err) {
      subscriptions.close()
      filters.stop()
      await http?.close(1000)
      throw err
    }
  }

  /** Closes the WebSocket listener, subscriptions and filters, then the HTTP listener. */
  async close(): Promise<void> {
    await this.ws?.close()
    this.subscriptions.close()
    this.filters.stop()
    await this.http?.close(1000)
  }
}
