/** The web3 namespace: client version and Keccak-256. */
import { keccak256 } from '../../crypto/index.js'
import { data } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { ClientIdentity } from '../../config/node-config.js'
import type { EthBackend } from './backend.js'
import { encodeData } from './format.js'

/**
 * `nodectl/v<semver>/<os>-<arch>/node<version>` (docs/decisions.md; geth's layout); a dev chain set to
 * identify as Anvil or Hardhat answers with their prefix (`anvil/v…`, `HardhatNetwork/…`), still naming nodectl.
 */
export function formatClientVersion(version: string, identity: ClientIdentity = 'nodectl'): string {
  if (identity === 'anvil') return `anvil/v${version}-nodectl`
  if (identity === 'hardhat') return `HardhatNetwork/${version}/nodectl`
  return `nodectl/v${version}/${process.platform}-${process.arch}/node${process.versions.node}`
}

export function createWeb3Methods(backend: EthBackend, identity: ClientIdentity = 'nodectl'): MethodTable {
  const clientVersion = formatClientVersion(backend.version, identity)
  return [
    defineMethod('web3_clientVersion', [], () => clientVersion),
    // Keccak-256 of the hex-DECODED input, as geth (Evmos hashes the string's characters: not followed).
    defineMethod('web3_sha3', [required(data)], ([input]) => encodeData(keccak256(input))),
  ]
}
