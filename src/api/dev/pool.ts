/**
 * Removal from the pool (docs/dev-chain.md, "The pool"): a transaction a test sent but wants gone
 * before the next block. Each name answers as its own node does: `anvil_dropTransaction` the hash, or
 * null when the pool did not hold it (Anvil's `Option<B256>`); `hardhat_dropTransaction` a bool, and
 * -32602 for a transaction already mined (Hardhat); `anvil_dropAllTransactions` null.
 */
import { bytesToHex } from '../../primitives/hex.js'
import { RpcErrorCode } from '../../rpc/json-rpc.js'
import { hash } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import { RpcError } from '../../rpc/rpc-errors.js'
import type { DevPoolBackend } from './pool-backend.js'

export function createPoolMethods(backend: DevPoolBackend): MethodTable {
  return [
    defineMethod('anvil_dropTransaction', [required(hash)], ([txHash]) => (backend.dropTransaction(txHash) ? bytesToHex(txHash) : null)),
    defineMethod('hardhat_dropTransaction', [required(hash)], async ([txHash]) => {
      if (backend.dropTransaction(txHash)) return true
      if (await backend.isMined(txHash))
        throw new RpcError(RpcErrorCode.invalidParams, `Transaction ${bytesToHex(txHash)} cannot be dropped because it's already mined`)
      return false
    }),
    defineMethod('anvil_dropAllTransactions', [], () => {
      backend.dropAllTransactions()
      return null
    }),
  ]
}
