/**
 * The one `Common` of the process for a chain id (Cancun rules, named explicitly: @ethereumjs 10's
 * default hardfork is Prague), with crypto routed through `crypto/` so the native
 * secp256k1 binding recovers senders and serves the ecrecover precompile.
 */
import { type Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import { keccak256, recoverPublicKey, sha256 } from '../crypto/index.js'
import { installFastIsActivatedEIP } from './state/ethereumjs-patches.js'

const cache = new Map<bigint, Common>()
/** The transaction Common of each process Common (see `txCommonOf`). */
const txCommons = new WeakMap<Common, Common>()

/** The recovery id (0/1) of a signature's `v` (typed: 0/1; legacy: 27/28, or EIP-155's chainId·2+35/36), else undefined. */
export function recoveryIdOf(v: bigint, chainId: bigint | undefined): number | undefined {
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (chainId * 2n + 35n)
  return recovery === 0n || recovery === 1n ? Number(recovery) : undefined
}

function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = recoveryIdOf(v, chainId)
  if (recovery === undefined) throw new Error('Invalid signature v value')
  return recoverPublicKey(msgHash, r, s, recovery).subarray(1)
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
    installFastIsActivatedEIP(common)
    cache.set(chainId, common)
  }
  return common
}

/**
 * The Common to build transactions with: a copy of `common` (from getCommon, so it already holds the
 * tx parameters) whose `updateParams` does nothing, on it and on every copy of it. Each tx constructor
 * copies its Common and calls `updateParams(paramsTx)`, which rebuilds the whole parameter cache even
 * when nothing changes: ~60 µs per transaction here, more than the rest of the decoding. Copies are
 * `Object.assign`s, so the own no-op property travels with them; everything else stays per copy.
 */
export function txCommonOf(common: Common): Common {
  let txCommon = txCommons.get(common)
  if (!txCommon) {
    txCommon = common.copy()
    Object.defineProperty(txCommon, 'updateParams', { value: () => {}, enumerable: true, writable: true })
    txCommons.set(common, txCommon)
  }
  return txCommon
}
