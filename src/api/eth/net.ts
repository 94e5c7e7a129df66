/** The net namespace: network id, listening, peers. */
import { defineMethod, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'

export function createNetMethods(backend: EthBackend): MethodTable {
  const networkId = backend.chainId.toString(10)
  return [
    // The EIP-155 chain id in decimal (Evmos: `nodectl_9000-1` → "9000").
    defineMethod('net_version', [], () => networkId),
    defineMethod('net_listening', [], () => backend.listening()),
    // A JSON number, not a QUANTITY (spec example, Evmos).
    defineMethod('net_peerCount', [], () => backend.peerCount()),
  ]
}
