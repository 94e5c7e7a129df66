/**
 * Where the client commands find the node: `--node` / `--ws` when given, else the `[json-rpc]`
 * `address` / `ws-address` of the home's app.toml (`--home`, `$NODECTL_HOME`, `~/.nodectl`) when it
 * exists, else the defaults http://127.0.0.1:8545 and ws://127.0.0.1:8546. A listener bound to every
 * interface (0.0.0.0, ::) is reached on loopback.
 */
import { homePaths, resolveHome } from '../config/home.js'
import { formatHostPort, parseHostPort } from '../config/listen-address.js'
import type { HostPort } from '../config/node-config.js'
import { isTable, readTomlFile } from '../config/read-toml.js'

/** Default HTTP JSON-RPC URL (Evmos `[json-rpc] address` default). */
export const DEFAULT_HTTP_URL = 'http://127.0.0.1:8545'
/** Default WebSocket JSON-RPC URL (Evmos `[json-rpc] ws-address` default, reached on loopback). */
export const DEFAULT_WS_URL = 'ws://127.0.0.1:8546'

/** The node's endpoints as the client commands use them. */
export interface Endpoints {
  /** HTTP JSON-RPC URL. */
  http: string
  /** WebSocket JSON-RPC URL. */
  ws: string
  /** The home whose app.toml was consulted (it may not exist). */
  home: string
}

/** Flags that choose the endpoints. */
export interface EndpointFlags {
  node?: string
  ws?: string
  home?: string
}

/** A listen address as a URL to connect to: wildcard hosts become loopback. */
export function urlOfListenAddress(scheme: 'http' | 'ws', addr: HostPort): string {
  const host = addr.host === '0.0.0.0' ? '127.0.0.1' : addr.host === '::' ? '::1' : addr.host
  return `${scheme}://${formatHostPort({ host, port: addr.port })}`
}

/** Reads a `[json-rpc]` address key of app.toml; `undefined` when absent or unparsable. */
function addressIn(table: Record<string, unknown> | undefined, key: string): HostPort | undefined {
  const value = table?.[key]
  if (typeof value !== 'string') return undefined
  try {
    return parseHostPort(value)
  } catch {
    return undefined
  }
}

/** Resolves the endpoints; see the file comment for the order. */
export async function resolveEndpoints(flags: EndpointFlags, env: NodeJS.ProcessEnv = process.env): Promise<Endpoints> {
  const home = resolveHome(flags.home, env)
  let jsonRpc: Record<string, unknown> | undefined
  if (flags.node === undefined || flags.ws === undefined) {
    const app = await readTomlFile(homePaths(home).appToml, 'app.toml').catch(() => undefined)
    const table = app?.['json-rpc']
    jsonRpc = isTable(table) ? table : undefined
  }
  const httpAddr = addressIn(jsonRpc, 'address')
  const wsAddr = addressIn(jsonRpc, 'ws-address')
  return {
    http: flags.node ?? (httpAddr ? urlOfListenAddress('http', httpAddr) : DEFAULT_HTTP_URL),
    ws: flags.ws ?? (wsAddr ? urlOfListenAddress('ws', wsAddr) : DEFAULT_WS_URL),
    home,
  }
}
