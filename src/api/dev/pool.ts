/**
 * Removal from the pool (docs/dev-chain.md, "The pool"): a transaction a test sent but wants gone
 * before the next block. Each name answers as its own node does: `anvil_dropTransaction` the hash, or
 * null when the pool did not hold it (Anvil's `Option<B256>`); `hardhat_dropTransaction` a bool
 * (Hardhat); `anvil_dropAllTransactions` null.
 */
import { bytesToHex } from '../../primitives/hex.js'
import { hash } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { DevPoolBackend } from './pool-backend.js'

export function createPoolMethods(backend: DevPoolBackend): MethodTable {
  return [
    defineMethod('anvil_dropTransaction', [required(hash)], ([txHash]) => (backend.dropTransaction(txHash) ? bytesToHex(txHash) : null)),
    defineMethod('hardhat_dropTransaction', [required(hash)], ([txHash]) => backend.dropTransaction(txHash)),
    defineMethod('anvil_dropAllTransactions', [], () => {
      backend.dropAllTransactions()
      return null
    }),
  ]
}
