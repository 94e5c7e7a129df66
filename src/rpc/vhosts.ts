/**
 * `http-vhosts`: which `Host` names the EVM JSON-RPC over HTTP answers, with geth's rules
 * (`node/rpcstack.go` virtualHostHandler, `--http.vhosts`, default `localhost`). It stops DNS
 * rebinding: a page of evil.example whose name is made to resolve to 127.0.0.1 is same-origin with
 * the node for the browser, so CORS does not apply, but its requests carry `Host: evil.example`.
 * - no `Host` header: allowed (a browser always sends one);
 * - an IP address (with or without a port): allowed, no name is involved;
 * - `*` allows every name; otherwise the name without its port must be listed (case-insensitive).
 */
import { isIP } from 'node:net'

/** The host part of a `Host` header: `name`, `name:port`, `[v6]:port` → `name` / `v6`. */
function stripPort(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    return end < 0 ? host : host.slice(1, end)
  }
  const colon = host.indexOf(':')
  // More than one colon: a bare IPv6 address, which Go's SplitHostPort refuses and geth then reads whole.
  return colon >= 0 && host.indexOf(':', colon + 1) < 0 ? host.slice(0, colon) : host
}

/** Builds the `Host` check of the HTTP listener from its `http-vhosts` list. */
export function createHostCheck(vhosts: readonly string[]): (host: string | undefined) => boolean {
  const names = new Set(vhosts.map((v) => v.trim().toLowerCase()).filter((v) => v !== ''))
  if (names.has('*')) return () => true
  return (host) => {
    if (host === undefined || host === '') return true
    const name = stripPort(host)
    return isIP(name) !== 0 || names.has(name.toLowerCase())
  }
}
