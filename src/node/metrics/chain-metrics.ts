/**
 * geth's `chain/head/*` gauges: the number of the latest block, header and receipts the EVM side
 * serves. One height here: a block, its header and its receipts are written in one batch.
 */
import { Gauge, type Registry } from 'prom-client'

export function watchChainHead(geth: Registry, latestHeight: () => number): void {
  const gauge = (name: string, help: string) =>
    new Gauge({
      name,
      help,
      registers: [geth],
      collect(this: Gauge) {
        this.set(latestHeight())
      },
    })
  gauge('chain_head_block', 'Number of the latest block.')
  gauge('chain_head_header', 'Number of the latest header.')
  gauge('chain_head_receipt', 'Number of the latest block whose receipts are stored.')
}
