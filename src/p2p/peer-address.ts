/** CometBFT peer addresses (`<node id>@host:port`) and listen addresses as libp2p multiaddrs. */
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import { parseHostPort } from '../config/listen-address.js'
import type { HostPort } from '../config/node-config.js'

export interface PeerAddress {
  /** 40 lower-case hex digits. */
  nodeId: string
  addr: HostPort
}

/** Parses `<node id>@host:port` (config/codecs.ts has checked the form already). */
export function parsePeerAddress(peer: string): PeerAddress {
  const at = peer.indexOf('@')
  return { nodeId: peer.slice(0, at).toLowerCase(), addr: parseHostPort(peer.slice(at + 1)) }
}

/** `/ip4/…/tcp/…`, `/ip6/…` for IPv6 literals, `/dns/…` for names. */
export function toMultiaddr(addr: HostPort): Multiaddr {
  const proto = addr.host.includes(':') ? 'ip6' : /^[0-9.]+$/.test(addr.host) ? 'ip4' : 'dns'
  return multiaddr(`/${proto}/${addr.host}/tcp/${addr.port}`)
}
