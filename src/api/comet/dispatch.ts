/**
 * Runs routes for every transport: finds the route, decodes its arguments from JSON-RPC params or a
 * URI query, and calls the handler with a RouteContext. The transports decide how failures look
 * on the wire (codes and HTTP statuses differ between them, as in CometBFT).
 */
import type { Logger } from '../../utils/logger.js'
import type { CometBackend } from './backend.js'
import { InvalidParamsError, type RpcId } from './errors.js'
import { decodeJsonParams, decodeUriParams } from './params.js'
import type { EventSubscriptions, RouteContext, RouteDef, RouteOptions, WsClient } from './route.js'
import { COMET_ROUTE_MAP } from './routes.js'
import type { Json } from './wire-json.js'

/** Everything the dispatcher needs. */
export interface DispatcherDeps {
  backend: CometBackend
  options: RouteOptions
  log: Logger
  /** Aborted when the server closes. */
  signal: AbortSignal
  subscriptions?: EventSubscriptions
  routes?: ReadonlyMap<string, RouteDef>
}

/** Route lookup, argument decoding and handler calls. */
export class RouteDispatcher {
  readonly routes: ReadonlyMap<string, RouteDef>

  constructor(private readonly deps: DispatcherDeps) {
    this.routes = deps.routes ?? COMET_ROUTE_MAP
  }

  /** Decodes JSON-RPC params; failures are InvalidParamsError with CometBFT's prefix. */
  argsFromJson(route: RouteDef, params: unknown): Record<string, unknown> {
    try {
      return decodeJsonParams(route.params, params) as Record<string, unknown>
    } catch (err) {
      throw new InvalidParamsError(`error converting json params to arguments: ${(err as Error).message}`)
    }
  }

  /** Decodes URI query values; failures are InvalidParamsError with CometBFT's prefix. */
  argsFromUri(route: RouteDef, get: (name: string) => string): Record<string, unknown> {
    try {
      return decodeUriParams(route.params, get) as Record<string, unknown>
    } catch (err) {
      throw new InvalidParamsError(`error converting http params to arguments: ${(err as Error).message}`)
    }
  }

  /** Calls the handler. Unexpected failures are logged; all are rethrown for the transport to render. */
  async call(route: RouteDef, args: Record<string, unknown>, ws?: { client: WsClient; requestId: RpcId }): Promise<Json> {
    const ctx: RouteContext = {
      backend: this.deps.backend,
      options: this.deps.options,
      log: this.deps.log,
      signal: this.deps.signal,
      ws: ws?.client,
      requestId: ws?.requestId,
      subscriptions: this.deps.subscriptions,
    }
    try {
      return await route.handler(ctx, args)
    } catch (err) {
      if (!(err instanceof Error) || err.constructor === TypeError || err.constructor === RangeError) {
        this.deps.log.error('consensus rpc handler failed', { route: route.name, err })
      } else {
        this.deps.log.debug('consensus rpc call returned an error', { route: route.name, err })
      }
      throw err
    }
  }
}
