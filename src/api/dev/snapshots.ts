/**
 * Snapshots (docs/dev-chain.md, "Snapshots"): `evm_snapshot` answers a hex quantity id, numeric and
 * increasing (Hardhat's network helpers compare `Number(id)`); `evm_revert(id)` answers `true`, or
 * `false` for an unknown id, as Anvil and Hardhat. `anvil_reset`/`hardhat_reset` go back to genesis.
 */
import { DecodeError, objectOf, uint64, type Codec } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import { defineAliases } from './aliases.js'
import type { SnapshotBackend } from './snapshot-backend.js'

/** A snapshot id as a QUANTITY or a JSON number (clients send either). */
const snapshotId: Codec<bigint> = (value) => {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new DecodeError(`number ${value}`, 'U256')
    return BigInt(value)
  }
  return uint64(value)
}

/**
 * `anvil_reset`'s `{jsonRpcUrl, blockNumber}` and `hardhat_reset`'s `{forking: {jsonRpcUrl, blockNumber}}`
 * would reset onto a fork of another chain, which a dev chain of its own does not do: refused, said so.
 * Empty or null fields (viem sends `{forking: {blockNumber: null}}`) reset to genesis.
 */
const resetOptions: Codec<true> = (value) => {
  const options = objectOf(value, 'ResetOptions')
  const forking = options.forking === undefined || options.forking === null ? {} : objectOf(options.forking, 'Forking')
  for (const [where, fields] of [
    ['', options],
    ['forking.', forking],
  ] as const) {
    for (const key of ['jsonRpcUrl', 'blockNumber']) {
      if (fields[key] !== undefined && fields[key] !== null)
        throw new DecodeError(`${where}${key}: forking is not supported; nodectl start --dev resets to its own genesis`)
    }
  }
  return true
}

export function createSnapshotMethods(backend: SnapshotBackend): MethodTable {
  return [
    ...defineAliases(['evm_snapshot', 'anvil_snapshot'], [], async () => '0x' + (await backend.snapshot()).toString(16)),
    ...defineAliases(['evm_revert', 'anvil_revert'], [required(snapshotId)], ([id]) => backend.revert(id)),
    defineMethod('anvil_reset', [optional(resetOptions)], async () => {
      await backend.reset()
      return null
    }),
    defineMethod('hardhat_reset', [optional(resetOptions)], async () => {
      await backend.reset()
      return true
    }),
  ]
}
