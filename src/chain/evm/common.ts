/**
 * The one `Common` of the process for a chain id (Cancun rules: the v10 default would be Prague,
 * shared/reference/ethereumjs-v10.md rule 1), with crypto routed through `crypto/` so the native
 * secp256k1 binding recovers senders and serves the ecrecover precompile.
 */
import { Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import { keccak256, recoverPublicKey, sha256 } from '../../crypto/index.js'

const cache = new Map<bigint, Common>()
/** Commons that already carry the transaction parameters (see `hasTxParams`). */
const withTxParams = new WeakSet<Common>()

function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (chainId * 2n + 35n)
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
  return recoverPublicKey(msgHash, r, s, Number(recovery)).subarray(1)
}

/** The Common for `chainId`, created once per process. */
export function getCommon(chainId: bigint): Common {
  let common = cache.get(chainId)
  if (!common) {
    common = createCustomCommon({ chainId: Number(chainId), name: `nodectl-${chainId}` }, Mainnet, {
      hardfork: Hardfork.Cancun,
      customCrypto: { ecrecover, keccak256, sha256 },
    })
    // Merge the tx parameters once: every tx constructor otherwise deep-copies them into its Common
    // copy (JSON round trip), about half of the decoding time.
    common.updateParams(paramsTx)
    withTxParams.add(common)
    cache.set(chainId, common)
  }
  return common
}

/**
 * Whether `common` (from getCommon) already holds the tx parameters, so transactions can be built with
 * `params: {}` and skip re-merging them (their Common copy shares the merged parameter set).
 */
export function hasTxParams(common: Common): boolean {
  return withTxParams.has(common)
}
