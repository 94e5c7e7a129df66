/** The p2p host's limits and timeouts, with CometBFT's `[p2p]` defaults. */
export interface P2POptions {
  /** `max_num_inbound_peers` (default 40). */
  maxInboundPeers: number
  /** `max_num_outbound_peers` (default 10). */
  maxOutboundPeers: number
  /** `handshake_timeout`, ms (default 20 s). */
  handshakeTimeoutMs: number
  /** `dial_timeout`, ms (default 3 s). */
  dialTimeoutMs: number
}

export function defaultP2POptions(): P2POptions {
  return { maxInboundPeers: 40, maxOutboundPeers: 10, handshakeTimeoutMs: 20_000, dialTimeoutMs: 3_000 }
}
