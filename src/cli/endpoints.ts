/**
 * Where the client commands find the node, one scheme for every command (as cast's `--rpc-url`):
 *   - the EVM JSON-RPC over HTTP: `--rpc-url`/`-r`, else NODECTL_RPC_URL, else ETH_RPC_URL (cast's);
 *   - the EVM JSON-RPC over WebSocket: `--ws-url`, else NODECTL_WS_URL;
 *   - the consensus RPC: `--comet-url`, else NODECTL_COMET_URL;
 * each else where the running node of the home (`--home`, `$NODECTL_HOME`, `~/.nodectl`) recorded it
 * listens (`data/listen.json`), else the home's app.toml `[json-rpc] address` / `ws-address` and
 * config.toml `[rpc] laddr`, else http://127.0.0.1:8545, ws://127.0.0.1:8546, http://127.0.0.1:26657.
 * Every command takes every one of them. A value may be `host:port`, `:port`, `http(s)://…`, `ws(s)://…`
 * or `tcp://…` (CometBFT's form): each is turned into the scheme its endpoint needs. A listener bound to
 * every interface (0.0.0.0, ::) is reached on loopback.
 */
import { homePaths, resolveHome } from '../config/home.js'
import { parseHostPort, parseLaddr, urlOfListenAddress } from '../config/listen-address.js'
import { readListenRecord } from '../config/listen-record.js'
import type { HostPort } from '../config/node-config.js'
import { isTable, readTomlFile } from '../config/read-toml.js'

/** Default HTTP JSON-RPC URL (Evmos `[json-rpc] address` default). */
export const DEFAULT_HTTP_URL = 'http://127.0.0.1:8545'
/** Default WebSocket JSON-RPC URL (Evmos `[json-rpc] ws-address` default, reached on loopback). */
export const DEFAULT_WS_URL = 'ws://127.0.0.1:8546'
/** Default consensus RPC URL (CometBFT's `[rpc] laddr` default tcp://127.0.0.1:26657, as HTTP). */
export const DEFAULT_COMET_URL = 'http://127.0.0.1:26657'

/** The node's endpoints as the client commands use them. */
export interface Endpoints {
  /** EVM HTTP JSON-RPC URL. */
  http: string
  /** EVM WebSocket JSON-RPC URL. */
  ws: string
  /** Consensus RPC URL (HTTP; subscriptions at `<url>/websocket`). */
  comet: string
  /** The home consulted (it may not exist). */
  home: string
}

/** The connection flags every client command takes. */
export interface ConnectionFlags {
  'rpc-url'?: string | undefined
  'ws-url'?: string | undefined
  'comet-url'?: string | undefined
  home?: string | undefined
}

/** A flag or variable value that is not a URL of its kind. */
export class MalformedUrlError extends Error {}

type Kind = 'http' | 'ws'

/**
 * `text` as a URL of `kind` (`http` for the JSON-RPC and consensus RPC, `ws` for the WebSocket);
 * `source` names the flag or variable in the error.
 */
export function normalizeUrl(text: string, kind: Kind, source: string): string {
  const input = text.trim()
  const fail = (why: string): never => {
    throw new MalformedUrlError(`malformed URL "${text}" for ${source}: ${why}`)
  }
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `tcp://${input.startsWith(':') ? `127.0.0.1${input}` : input}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    return fail(`want host:port or ${kind}://host:port`)
  }
  const scheme = url.protocol.slice(0, -1)
  if (scheme === 'tcp') {
    let addr: HostPort | undefined
    try {
      addr = parseLaddr(`tcp://${url.host}`)
    } catch {
      return fail('want host:port with a port')
    }
    if (!addr || addr.port === 0) return fail('want a non-zero port')
    return urlOfListenAddress(kind, addr)
  }
  const secure = scheme === 'https' || scheme === 'wss'
  if (!['http', 'https', 'ws', 'wss'].includes(scheme))
    return fail(`unsupported scheme "${scheme}", want ${kind}, ${kind}s, tcp or host:port`)
  url.protocol = `${kind}${secure ? 's' : ''}:`
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1'
  else if (url.hostname === '[::]') url.hostname = '[::1]'
  return url.href.replace(/\/$/, '')
}

/** The three endpoints, by the `Endpoints` key. */
export type EndpointName = 'http' | 'ws' | 'comet'

/**
 * Resolves the three endpoints; see the file comment for the order. Throws MalformedUrlError for a
 * malformed flag or variable of `use` (every endpoint when `use` is not given); a command that talks to
 * one endpoint ignores the others' values, malformed or not, as it ignores their flags.
 */
export async function resolveEndpoints(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
  use?: EndpointName,
): Promise<Endpoints> {
  const home = resolveHome(flags.home, env)
  const given = (name: EndpointName, pairs: [string | undefined, string][], kind: Kind): string | undefined => {
    const hit = pairs.find(([value]) => value !== undefined && value !== '')
    if (!hit) return undefined
    try {
      return normalizeUrl(hit[0]!, kind, hit[1])
    } catch (err) {
      if (use === undefined || use === name) throw err
      return undefined
    }
  }
  const http = given(
    'http',
    [
      [flags['rpc-url'], '--rpc-url'],
      [env.NODECTL_RPC_URL, 'NODECTL_RPC_URL'],
      [env.ETH_RPC_URL, 'ETH_RPC_URL'],
    ],
    'http',
  )
  const ws = given(
    'ws',
    [
      [flags['ws-url'], '--ws-url'],
      [env.NODECTL_WS_URL, 'NODECTL_WS_URL'],
    ],
    'ws',
  )
  // A consensus subscription URL pasted as the RPC (`ws://host:port/websocket`) names the same server.
  const comet = given(
    'comet',
    [
      [flags['comet-url'], '--comet-url'],
      [env.NODECTL_COMET_URL, 'NODECTL_COMET_URL'],
    ],
    'http',
  )?.replace(/\/websocket\/?$/, '')
  if (http && ws && comet) return { http, ws, comet, home }
  const paths = homePaths(home)
  const running = await readListenRecord(paths.dataDir)
  const [app, config] = await Promise.all([
    readTomlFile(paths.appToml, 'app.toml').catch(() => undefined),
    readTomlFile(paths.configToml, 'config.toml').catch(() => undefined),
  ])
  const jsonRpc = isTable(app?.['json-rpc']) ? (app['json-rpc'] as Record<string, unknown>) : undefined
  const rpc = isTable(config?.rpc) ? (config.rpc as Record<string, unknown>) : undefined
  const fromFile = (table: Record<string, unknown> | undefined, key: string, kind: Kind, parse: (s: string) => HostPort | undefined) => {
    const value = table?.[key]
    if (typeof value !== 'string') return undefined
    try {
      const addr = parse(value.trim())
      return addr ? urlOfListenAddress(kind, addr) : undefined
    } catch {
      return undefined
    }
  }
  return {
    http: http ?? running?.jsonRpcHttp ?? fromFile(jsonRpc, 'address', 'http', parseHostPort) ?? DEFAULT_HTTP_URL,
    ws: ws ?? running?.jsonRpcWs ?? fromFile(jsonRpc, 'ws-address', 'ws', parseHostPort) ?? DEFAULT_WS_URL,
    comet: comet ?? running?.cometRpc ?? fromFile(rpc, 'laddr', 'http', parseLaddr) ?? DEFAULT_COMET_URL,
    home,
  }
}
