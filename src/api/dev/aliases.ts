/**
 * Dev methods go by several names: Anvil's, and the `evm_`/`anvil_`/`hardhat_` aliases clients call
 * (viem's test client calls `${mode}_<name>`, Hardhat's network helpers call `hardhat_*`). One definition
 * is registered under each of them, so the aliases cannot answer differently.
 */
import { defineMethod, type ArgsOf, type CallContext, type MethodDef, type Param } from '../../rpc/method-table.js'

/** The same parameters and handler under every name of `names` (the first is Anvil's). */
export function defineAliases<const P extends readonly Param<unknown>[], R>(
  names: readonly string[],
  params: P,
  handler: (args: ArgsOf<P>, ctx: CallContext) => R | Promise<R>,
): MethodDef[] {
  return names.map((name) => defineMethod(name, params, handler))
}
