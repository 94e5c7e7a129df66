/**
 * The consensus RPC as the consensus commands use it: the HTTP URL chosen like every endpoint
 * (endpoints.ts: `--comet-url`, NODECTL_COMET_URL, the running node of the home, its config.toml
 * `[rpc] laddr`, tcp://127.0.0.1:26657) and the WebSocket of subscriptions at `<url>/websocket`.
 */
import { resolveEndpoints, type ConnectionFlags } from './endpoints.js'

/** CometBFT's WebSocket endpoint path (`rpc/jsonrpc/server/ws_handler.go`, mounted at `/websocket`). */
export const COMET_WS_PATH = '/websocket'

/** The consensus RPC endpoints as the commands use them. */
export interface CometEndpoints {
  /** HTTP URL JSON-RPC requests are POSTed to. */
  http: string
  /** WebSocket URL of subscriptions. */
  ws: string
  /** The home consulted (it may not exist). */
  home: string
}

/** The WebSocket URL of a consensus RPC HTTP URL: same host and path, `ws(s)://`, plus `/websocket`. */
export function cometWsUrlOf(http: string): string {
  return `${http.replace(/^http/, 'ws').replace(/\/$/, '')}${COMET_WS_PATH}`
}

/** Resolves the consensus RPC endpoints. Throws MalformedUrlError. */
export async function resolveCometEndpoints(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): Promise<CometEndpoints> {
  const { comet, home } = await resolveEndpoints(flags, env, 'comet')
  return { http: comet, ws: cometWsUrlOf(comet), home }
}
