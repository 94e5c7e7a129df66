/**
 * Signatures as the JSON-RPC shows them (eth_sign, personal_sign, eth_signTypedData_v4,
 * personal_ecRecover): r ‖ s ‖ V with V = 27 + recovery id, the form ethers' `verifyMessage`, viem and
 * Solidity's `ecrecover` take (geth adds 27 in `ethapi` for the same reason).
 */
import { keccak256, publicKeyToAddress, recoverPublicKey } from '../../crypto/index.js'
import { concatBytes, utf8ToBytes } from '../../primitives/hex.js'
import { NodeError } from '../../utils/errors.js'
import type { RecoverableSignature } from './accounts-backend.js'

/** Bytes of an RPC signature: r (32) ‖ s (32) ‖ V (1) (geth `crypto.SignatureLength`). */
export const SIGNATURE_LENGTH = 65
/** V of a signature with recovery id 0 (Ethereum's legacy offset, kept by eth_sign since Frontier). */
const V_OFFSET = 27

/**
 * EIP-191 version 0x45 (geth `accounts.TextHash`): keccak256("\x19Ethereum Signed Message:\n" ‖ decimal
 * length ‖ message). The prefix (`<CHAIN_FAMILY>` = Ethereum, docs/decisions.md) keeps a signed message from
 * ever being a valid transaction.
 */
export function textHash(message: Uint8Array): Uint8Array {
  return keccak256(concatBytes(utf8ToBytes(`\x19Ethereum Signed Message:\n${message.length}`), message))
}

/** The 65-byte RPC form of a signature, V = 27 or 28. */
export function encodeRpcSignature(sig: RecoverableSignature): Uint8Array {
  const out = new Uint8Array(SIGNATURE_LENGTH)
  out.set(sig.r, 32 - sig.r.length)
  out.set(sig.s, 64 - sig.s.length)
  out[64] = V_OFFSET + sig.recovery
  return out
}

/**
 * personal_ecRecover: the address whose key signed `message` (EIP-191 hashed) producing `signature`,
 * with geth's checks and texts: 65 bytes, V of 27 or 28 (the RPC form; a raw 0/1 is refused as geth does).
 */
export function recoverTextSigner(message: Uint8Array, signature: Uint8Array): Uint8Array {
  if (signature.length !== SIGNATURE_LENGTH) throw new NodeError(`signature must be ${SIGNATURE_LENGTH} bytes long`)
  const v = signature[64]!
  if (v !== V_OFFSET && v !== V_OFFSET + 1) throw new NodeError('invalid Ethereum signature (V is not 27 or 28)')
  let publicKey: Uint8Array
  try {
    publicKey = recoverPublicKey(textHash(message), signature.subarray(0, 32), signature.subarray(32, 64), v - V_OFFSET)
  } catch {
    // geth's secp256k1 binding: r or s out of range, or no curve point for r.
    throw new NodeError('invalid signature')
  }
  return publicKeyToAddress(publicKey)
}
