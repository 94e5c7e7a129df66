/**
 * Snapshots (docs/dev-chain.md, "Snapshots"): `evm_snapshot` answers a hex quantity id, numeric and
 * increasing (Hardhat's network helpers compare `Number(id)`); `evm_revert(id)` answers `true`, or
 * `false` for an unknown id, as Anvil and Hardhat.
 */
import { DecodeError, uint64, type Codec } from '../../rpc/codecs.js'
import { required, type MethodTable } from '../../rpc/method-table.js'
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

export function createSnapshotMethods(backend: SnapshotBackend): MethodTable {
  return [
    ...defineAliases(['evm_snapshot', 'anvil_snapshot'], [], async () => '0x' + (await backend.snapshot()).toString(16)),
    ...defineAliases(['evm_revert', 'anvil_revert'], [required(snapshotId)], ([id]) => backend.revert(id)),
  ]
}
