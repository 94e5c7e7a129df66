/**
 * Peers, under CometBFT's `p2p_peers` and geth's `p2p_peers`, read from the p2p host at scrape time.
 * The byte counters of both (per peer and channel, ingress and egress) are not exported: the libp2p
 * host keeps no traffic counts.
 */
import { Gauge, type Registry } from 'prom-client'
import type { P2PNode } from '../../p2p/p2p-node.js'
import type { CometSeries } from './comet-series.js'

export function watchPeers(series: CometSeries, geth: Registry, host: Pick<P2PNode, 'peers'> | undefined): void {
  const count = () => host?.peers().length ?? 0
  series.gauge('p2p', 'peers', 'Number of peers.', count)
  new Gauge({
    name: 'p2p_peers',
    help: 'Number of connected peers.',
    registers: [geth],
    collect(this: Gauge) {
      this.set(count())
    },
  })
}
