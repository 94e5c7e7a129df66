/**
 * Where the consensus-RPC commands find the node: `--rpc` when given (`tcp://host:port` as CometBFT
 * writes it, meaning HTTP; `http(s)://...`; or a bare `host:port`), else the `[rpc] laddr` of the
 * home's config.toml (`--home`, `$NODECTL_HOME`, `~/.nodectl`) when it exists and is not empty, else
 * tcp://127.0.0.1:26657. JSON-RPC calls are POSTed to the URL; subscriptions use `<url>/websocket`
 * (CometBFT's WebSocket path). A listener bound to every interface (0.0.0.0, ::) is reached on loopback.
 */
import { homePaths, resolveHome } from '../config/home.js'
import { parseLaddr } from '../config/listen-address.js'
import type { HostPort } from '../config/node-config.js'
import { isTable, readTomlFile } from '../config/read-toml.js'
import { urlOfListenAddress } from './endpoints.js'

/** Default consensus RPC URL (CometBFT's `[rpc] laddr` default tcp://127.0.0.1:26657, as HTTP). */
export const DEFAULT_COMET_URL = 'http://127.0.0.1:26657'

/** CometBFT's WebSocket endpoint path (`rpc/jsonrpc/server/ws_handler.go`, mounted at `/websocket`). */
export const COMET_WS_PATH = '/websocket'

/** The consensus RPC endpoints as the commands use them. */
export interface CometEndpoints {
  /** HTTP URL JSON-RPC requests are POSTed to. */
  http: string
  /** WebSocket URL of subscriptions. */
  ws: string
  /** The home whose config.toml was consulted (it may not exist). */
  home: string
}

/** Flags that choose the consensus RPC endpoint. */
export interface CometEndpointFlags {
  rpc?: string
  home?: string
}

/** A `--rpc` value as an HTTP(S) URL; throws a message naming the flag when it cannot be one. */
export function parseCometUrl(input: string): string {
  const text = input.trim()
  const fail = (why: string): never => {
    throw new Error(`invalid --rpc "${input}": ${why}`)
  }
  let url: URL
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `tcp://${text}`)
  } catch {
    return fail('want tcp://host:port or http://host:port')
  }
  if (url.protocol === 'tcp:') {
    let addr: HostPort | undefined
    try {
      addr = parseLaddr(`tcp://${url.host}`)
    } catch {
      return fail('want tcp://host:port')
    }
    if (!addr || addr.port === 0) return fail('want tcp://host:port with a non-zero port')
    return urlOfListenAddress('http', addr)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return fail(`unsupported scheme "${url.protocol.slice(0, -1)}", want tcp, http or https`)
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1'
  else if (url.hostname === '[::]') url.hostname = '[::1]'
  return url.href.replace(/\/$/, '')
}

/** The WebSocket URL of a consensus RPC HTTP URL: same host and path, `ws(s)://`, plus `/websocket`. */
export function cometWsUrlOf(http: string): string {
  return `${http.replace(/^http/, 'ws').replace(/\/$/, '')}${COMET_WS_PATH}`
}

/** The `[rpc] laddr` of config.toml; `undefined` when absent, empty (disabled) or unparsable. */
function laddrIn(config: Record<string, unknown> | undefined): HostPort | undefined {
  const table = config?.rpc
  const value = isTable(table) ? table.laddr : undefined
  if (typeof value !== 'string') return undefined
  try {
    return parseLaddr(value.trim())
  } catch {
    return undefined
  }
}

/** Resolves the endpoints; see the file comment for the order. */
export async function resolveCometEndpoints(flags: CometEndpointFlags, env: NodeJS.ProcessEnv = process.env): Promise<CometEndpoints> {
  const home = resolveHome(flags.home, env)
  let http: string
  if (flags.rpc !== undefined) {
    http = parseCometUrl(flags.rpc)
  } else {
    const config = await readTomlFile(homePaths(home).configToml, 'config.toml').catch(() => undefined)
    const laddr = laddrIn(config)
    http = laddr ? urlOfListenAddress('http', laddr) : DEFAULT_COMET_URL
  }
  return { http, ws: cometWsUrlOf(http), home }
}
