/** Protobuf form of a validator hashed into ValidatorsHash: `SimpleValidator`. */
import { ProtoWriter } from './proto.js'

/** `crypto.PublicKey` oneof with its ed25519 member (field 1). */
function encodePublicKey(pubKey: Uint8Array): Uint8Array {
  return new ProtoWriter().lenDelimited(1, pubKey).finish()
}

/** `SimpleValidator{pub_key=1, voting_power=2}`: `0a 22 0a 20 <pubkey> 10 <power>` for ed25519. */
export function encodeSimpleValidator(pubKey: Uint8Array, votingPower: bigint): Uint8Array {
  return new ProtoWriter().message(1, encodePublicKey(pubKey)).int(2, votingPower).finish()
}
