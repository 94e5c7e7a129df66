/**
 * The switch of contract console.log printing (docs/dev-chain.md, "Contract console.log"): on when the
 * node starts. `anvil_setLoggingEnabled` answers null (Anvil), `hardhat_setLoggingEnabled` true (Hardhat).
 */
import { bool } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { DevLoggingBackend } from './logging-backend.js'

export function createLoggingMethods(backend: DevLoggingBackend): MethodTable {
  return [
    defineMethod('anvil_setLoggingEnabled', [required(bool)], ([on]) => {
      backend.setLoggingEnabled(on)
      return null
    }),
    defineMethod('hardhat_setLoggingEnabled', [required(bool)], ([on]) => {
      backend.setLoggingEnabled(on)
      return true
    }),
  ]
}
