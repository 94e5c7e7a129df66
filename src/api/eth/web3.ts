/** The web3 namespace: client version and Keccak-256. */
import { keccak256 } from '../../crypto/index.js'
import { data } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { encodeData } from './format.js'

/** `nodectl/v<semver>/<os>-<arch>/node<version>` (docs/decisions.md; geth's layout). */
export function formatClientVersion(version: string): string {
  return `nodectl/v${version}/${process.platform}-${process.arch}/node${process.versions.node}`
}

export function createWeb3Methods(backend: EthBackend): MethodTable {
  const clientVersion = formatClientVersion(backend.version)
  return [
    defineMethod('web3_clientVersion', [], () => clientVersion),
    // Keccak-256 of the hex-DECODED input, as geth (Evmos hashes the string's characters: not followed).
    defineMethod('web3_sha3', [required(data)], ([input]) => encodeData(keccak256(input))),
  ]
}
