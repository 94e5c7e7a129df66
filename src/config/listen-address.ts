/**
 * Listen addresses: Evmos writes `host:port` (`127.0.0.1:8545`), CometBFT `tcp://host:port`
 * (`tcp://127.0.0.1:26657`). Port 0 asks the OS for a free port (tests use it).
 */
import type { HostPort, SocketAddress } from './node-config.js'

/** Largest TCP port. */
const MAX_PORT = 65535

/**
 * Parses `host:port` (IPv6 in brackets: `[::1]:8545`; an empty host means every interface, as Go's
 * `net.Listen(":8545")`). Throws `cannot parse "<input>": <reason>`.
 */
export function parseHostPort(input: string): HostPort {
  const fail = (why: string): never => {
    throw new Error(`cannot parse "${input}": ${why}`)
  }
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/]*)):([^:]*)$/.exec(input)
  if (!m) fail('want host:port')
  const host = m![1] ?? m![2] ?? ''
  const portText = m![3]!
  if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > MAX_PORT) fail(`port "${portText}" is not a number from 0 to ${MAX_PORT}`)
  return { host: host === '' ? '0.0.0.0' : host, port: Number(portText) }
}

/**
 * Parses a CometBFT listen address `tcp://host:port`. The empty string disables the listener
 * (`undefined`), as in CometBFT; `unix://` sockets are taken only where `parseSocketAddress` is used.
 */
export function parseLaddr(input: string): HostPort | undefined {
  if (input === '') return undefined
  if (input.startsWith('unix://')) throw new Error(`cannot parse "${input}": unix sockets are not supported, want tcp://host:port`)
  if (!input.startsWith('tcp://')) throw new Error(`cannot parse "${input}": want tcp://host:port`)
  try {
    return parseHostPort(input.slice('tcp://'.length))
  } catch (err) {
    throw new Error(`cannot parse "${input}": ${(err as Error).message.replace(/^cannot parse "[^"]*": /, '')}`)
  }
}

/** `host:port`, IPv6 hosts in brackets. */
export function formatHostPort(addr: HostPort): string {
  return `${addr.host.includes(':') ? `[${addr.host}]` : addr.host}:${addr.port}`
}

/** `tcp://host:port`, or "" for a disabled listener. */
export function formatLaddr(addr: HostPort | undefined): string {
  return addr === undefined ? '' : 'tcp://' + formatHostPort(addr)
}

/**
 * Parses a socket address as CometBFT's `proxy_app` takes it: `tcp://host:port` or `unix:///path`
 * (an absolute path).
 */
export function parseSocketAddress(input: string): SocketAddress {
  if (input.startsWith('unix://')) {
    const path = input.slice('unix://'.length)
    if (!path.startsWith('/')) throw new Error(`cannot parse "${input}": want unix:///absolute/path`)
    return { path }
  }
  const addr = parseLaddr(input)
  if (addr === undefined) throw new Error('must not be empty: want tcp://host:port or unix:///path')
  return addr
}

/** `tcp://host:port` or `unix:///path`. */
export function formatSocketAddress(addr: SocketAddress): string {
  return 'path' in addr ? `unix://${addr.path}` : formatLaddr(addr)
}

/** A listen address as a URL to connect to: wildcard hosts become loopback. */
export function urlOfListenAddress(scheme: 'http' | 'ws', addr: HostPort): string {
  const host = addr.host === '0.0.0.0' ? '127.0.0.1' : addr.host === '::' ? '::1' : addr.host
  return `${scheme}://${formatHostPort({ host, port: addr.port })}`
}
