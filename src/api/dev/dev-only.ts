/** The answer of a node that is not a development chain to every dev method. */
import { any } from '../../rpc/codecs.js'
import { defineMethod, optional, type MethodTable } from '../../rpc/method-table.js'
import { RpcError } from '../../rpc/rpc-errors.js'
import { RpcErrorCode } from '../../rpc/json-rpc.js'

/** -32601 `<method> is served only by a development chain (nodectl start --dev)`. */
export function devOnlyError(method: string): RpcError {
  return new RpcError(RpcErrorCode.methodNotFound, `${method} is served only by a development chain (nodectl start --dev)`)
}

/** More parameters than any dev method takes: the refusal answers whatever a caller passes. */
const ANY_PARAMS = Array.from({ length: 8 }, () => optional(any))

/** The same method names, each answering devOnlyError whatever its parameters. */
export function refuseOutsideDev(tables: readonly MethodTable[]): MethodTable[] {
  return tables.map((table) =>
    table.map((def) =>
      defineMethod(def.name, ANY_PARAMS, () => {
        throw devOnlyError(def.name)
      }),
    ),
  )
}
