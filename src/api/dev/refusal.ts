/**
 * A node that is not a development chain knows the dev methods only to refuse them: a caller that
 * reached a production node by mistake reads why, instead of geth's "does not exist/is not available".
 */
import { RpcErrorCode } from '../../rpc/json-rpc.js'
import { any, type Codec } from '../../rpc/codecs.js'
import { optional, type MethodDef, type MethodTable } from '../../rpc/method-table.js'
import { RpcError } from '../../rpc/rpc-errors.js'

/** -32601 with the reason: the method exists, on a `--dev` node only. */
export function notDevChainError(method: string): RpcError {
  return new RpcError(RpcErrorCode.methodNotFound, `${method} is served only by a development chain (nodectl start --dev)`)
}

const ANY_VALUE = optional(any as Codec<unknown>)

/**
 * Each method of `table` under its name and arity, answering {@link notDevChainError} whatever the
 * arguments (only too many of them is an invalid-params error first, as for every method).
 */
export function refuseOutsideDev(table: MethodTable): MethodTable {
  return table.map(
    (def): MethodDef => ({
      name: def.name,
      params: def.params.map(() => ANY_VALUE),
      handler: () => {
        throw notDevChainError(def.name)
      },
    }),
  )
}
