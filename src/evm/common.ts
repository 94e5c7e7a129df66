/**
 * The one `Common` of the process for a chain id (Cancun rules, named explicitly: @ethereumjs 10's
 * default hardfork is Prague), with crypto routed through `crypto/` so the native
 * secp256k1 binding recovers senders and serves the ecrecover precompile.
 */
import { type Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import type { EVMOpts } from '@ethereumjs/evm'
import { POINT_EVALUATION_PRECOMPILE } from './point-evaluation.js'
import { keccak256, recoverPublicKey, sha256 } from '../crypto/index.js'
import { installFastIsActivatedEIP } from './state/ethereumjs-patches.js'

/**
 * What a dev chain may change in Cancun's rules (docs/dev-chain.md, "Limits"). A rule of execution,
 * so every node replaying the chain must hold the same: only `start --dev` (one validator) sets them.
 */
export interface DevChainRules {
  /** EIP-7702 set-code transactions (type 4) on top of Cancun. */
  setCode?: boolean
  /** No EIP-170 limit on deployed code (24,576 bytes) nor EIP-3860 limit on init code (49,152 bytes). */
  unlimitedCodeSize?: boolean
}

/** EIP-7702: set-code transactions, the one Prague EIP a dev chain runs. */
export const SET_CODE_EIP = 7702

/** Own property marking a Common without the code size limits; `copy()` (an Object.assign) keeps it. */
const UNLIMITED_CODE_SIZE = Symbol('unlimitedCodeSize')

const cache = new Map<string, Common>()
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

/** The Common for `chainId` (and a dev chain's `rules`), created once per process. */
export function getCommon(chainId: bigint, rules: DevChainRules = {}): Common {
  const unlimitedCodeSize = rules.unlimitedCodeSize === true
  const setCode = rules.setCode === true
  const key = `${chainId}${setCode ? '/set-code' : ''}${unlimitedCodeSize ? '/unlimited-code-size' : ''}`
  let common = cache.get(key)
  if (!common) {
    common = createCustomCommon({ chainId: Number(chainId), name: `nodectl-${chainId}` }, Mainnet, {
      hardfork: Hardfork.Cancun,
      ...(setCode ? { eips: [SET_CODE_EIP] } : {}),
      customCrypto: { ecrecover, keccak256, sha256 },
    })
    // Merge the tx parameters once: every tx constructor otherwise deep-copies them into its Common
    // copy (JSON round trip), about half of the decoding time.
    common.updateParams(paramsTx)
    installFastIsActivatedEIP(common)
    if (unlimitedCodeSize) Object.defineProperty(common, UNLIMITED_CODE_SIZE, { value: true, enumerable: true })
    cache.set(key, common)
  }
  return common
}

/** Whether `common` (or a copy of it) runs without the code size limits ({@link DevChainRules}). */
export function isCodeSizeUnlimited(common: Common): boolean {
  return (common as Common & { [UNLIMITED_CODE_SIZE]?: boolean })[UNLIMITED_CODE_SIZE] === true
}

/** The EVM options of every VM of the node: `common`'s size limits, and the chain's point evaluation precompile. */
export function evmOptions(common: Common): EVMOpts {
  const unlimited = isCodeSizeUnlimited(common)
  return { allowUnlimitedContractSize: unlimited, allowUnlimitedInitCodeSize: unlimited, customPrecompiles: [POINT_EVALUATION_PRECOMPILE] }
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
