/**
 * The precompiled contracts the 4byte and flat-call tracers skip (geth `vm.ActivePrecompiles(rules)`,
 * which the JS tracer's `isPrecompiled` also answers from). The chain runs Cancun rules (common.ts):
 * 0x01–0x0a, ecrecover through the EIP-4844 point evaluation, plus the chain's own validator-admin
 * system contract, which the EVM installs as a precompile too (validator-admin.ts).
 */
import { bytesToHex } from '../../../primitives/hex.js'
import { VALIDATOR_ADMIN_ADDRESS } from '../../validators/validator-admin.js'
import type { Address } from '../hooks.js'

/** Highest standard precompile address under Cancun: 0x0a, KZG point evaluation (EIP-4844). */
const LAST_CANCUN_PRECOMPILE = 0x0a

const PRECOMPILES: ReadonlySet<string> = new Set([
  ...Array.from({ length: LAST_CANCUN_PRECOMPILE }, (_, i) => '0x' + (i + 1).toString(16).padStart(40, '0')),
  bytesToHex(VALIDATOR_ADMIN_ADDRESS),
])

/** True when `address` is a precompiled contract under the chain's rules. */
export function isPrecompiled(address: Address): boolean {
  return PRECOMPILES.has(bytesToHex(address))
}
