/**
 * The precompiles of a simulated block (simulate.ts): the chain's, less the addresses the block's
 * state overrides touch, plus the `movePrecompileToAddress` moves, checked as geth does (a move onto
 * itself -38022, onto an address overridden or moved to already -38023, of an address that is not a
 * precompile -32000). Each block starts again from the chain's set. The EVM's table is ethereumjs'
 * own map from unprefixed address to precompile, changed in place.
 */
import type { EVM } from '@ethereumjs/evm'
import { toChecksumAddress } from '../../primitives/address.js'
import type { SimAccountOverride } from './simulate-chain.js'
import { SimulateCode, SimulateError } from './simulate-errors.js'

function keyOf(address: Uint8Array): string {
  return Buffer.from(address).toString('hex')
}

export class SimulatedPrecompiles {
  private readonly table: Map<string, unknown>
  private readonly chain: Map<string, unknown>

  constructor(evm: EVM) {
    this.table = evm.precompiles as Map<string, unknown>
    this.chain = new Map(this.table)
  }

  /** Sets the table of a block with `overrides`; throws the specification's errors. */
  apply(overrides: readonly SimAccountOverride[]): void {
    const table = this.table
    table.clear()
    for (const [key, fn] of this.chain) table.set(key, fn)
    const overridden = new Set(overrides.map((o) => keyOf(o.address)))
    const moved = new Map<string, unknown>()
    for (const o of overrides) {
      const from = keyOf(o.address)
      const fn = this.chain.get(from)
      if (o.movePrecompileToAddress !== undefined) {
        const to = keyOf(o.movePrecompileToAddress)
        if (to === from)
          throw new SimulateError(SimulateCode.precompileSelfReference, `account ${toChecksumAddress(o.address)} is moved onto itself`)
        if (fn === undefined)
          throw new SimulateError(SimulateCode.invalidRequest, `account ${toChecksumAddress(o.address)} is not a precompile`)
        if (overridden.has(to) || moved.has(to))
          throw new SimulateError(
            SimulateCode.precompileDuplicateTarget,
            `account ${toChecksumAddress(o.movePrecompileToAddress)} is already overridden`,
          )
        moved.set(to, fn)
      }
      if (fn !== undefined) table.delete(from)
    }
    for (const [to, fn] of moved) table.set(to, fn)
  }
}
