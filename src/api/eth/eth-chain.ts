/** eth methods about the chain and the node: ids, head, sync, coinbase, mining stubs (eth_accounts: eth-signing.ts). */
import { NodeError } from '../../utils/errors.js'
import { toQuantity } from '../../primitives/quantity.js'
import { defineMethod, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { encodeData } from './format.js'

/** eth/65, as Evmos (`types/protocol.go`); its docs' `0x3f` is wrong. */
const PROTOCOL_VERSION = '0x41'

export function createEthChainMethods(backend: EthBackend): MethodTable {
  const chainId = toQuantity(backend.chainId)
  return [
    defineMethod('eth_chainId', [], () => chainId),
    defineMethod('eth_protocolVersion', [], () => PROTOCOL_VERSION),
    defineMethod('eth_blockNumber', [], () => toQuantity(backend.latestHeight())),
    defineMethod('eth_syncing', [], () => {
      const status = backend.syncStatus()
      if (status === undefined) return false
      return {
        startingBlock: toQuantity(status.startingBlock),
        currentBlock: toQuantity(status.currentBlock),
        highestBlock: toQuantity(status.highestBlock),
      }
    }),
    defineMethod('eth_coinbase', [], () => {
      const coinbase = backend.coinbase()
      if (coinbase === undefined) throw new NodeError('etherbase must be explicitly specified')
      return encodeData(coinbase)
    }),
    // No proof of work: constants, as geth after the merge and Evmos.
    defineMethod('eth_mining', [], () => false),
    defineMethod('eth_hashrate', [], () => '0x0'),
  ]
}
