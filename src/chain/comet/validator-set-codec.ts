/**
 * Protobuf forms of validators: `SimpleValidator` (hashed into ValidatorsHash) and
 * `tendermint.types.ValidatorSet` (how CometBFT's state store keeps a set, priorities and proposer included).
 */
import { ProtoReader, ProtoWriter } from './proto.js'
import type { Validator } from './types.js'

/** `crypto.PublicKey` oneof with its ed25519 member (field 1). */
function encodePublicKey(pubKey: Uint8Array): Uint8Array {
  return new ProtoWriter().lenDelimited(1, pubKey).finish()
}

function decodePublicKey(bytes: Uint8Array): Uint8Array {
  let key: Uint8Array | undefined
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field === 1) key = r.bytes()
    else if (r.field === 2) throw new Error('secp256k1 validator keys are not supported')
    else r.skip()
  }
  if (!key) throw new Error('validator without a public key')
  return key
}

/** `SimpleValidator{pub_key=1, voting_power=2}`: `0a 22 0a 20 <pubkey> 10 <power>` for ed25519. */
export function encodeSimpleValidator(pubKey: Uint8Array, votingPower: bigint): Uint8Array {
  return new ProtoWriter().message(1, encodePublicKey(pubKey)).int(2, votingPower).finish()
}

/** `Validator{address=1, pub_key=2 (always), voting_power=3, proposer_priority=4}`. */
export function encodeValidator(v: Validator): Uint8Array {
  return new ProtoWriter()
    .bytes(1, v.address)
    .message(2, encodePublicKey(v.pubKey))
    .int(3, v.votingPower)
    .int(4, v.proposerPriority)
    .finish()
}

/** Inverse of `encodeValidator` (ed25519 keys only). */
export function decodeValidator(bytes: Uint8Array): Validator {
  const v: Validator = { address: new Uint8Array(0), pubKey: new Uint8Array(0), votingPower: 0n, proposerPriority: 0n }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1: v.address = r.bytes(); break
      case 2: v.pubKey = decodePublicKey(r.bytes()); break
      case 3: v.votingPower = r.int64(); break
      case 4: v.proposerPriority = r.int64(); break
      default: r.skip()
    }
  }
  return v
}

/** `ValidatorSet{validators=1, proposer=2, total_voting_power=3}`. */
export function encodeValidatorSetState(validators: Validator[], proposer: Validator | undefined, totalVotingPower: bigint): Uint8Array {
  const w = new ProtoWriter()
  for (const v of validators) w.message(1, encodeValidator(v))
  if (proposer) w.message(2, encodeValidator(proposer))
  return w.int(3, totalVotingPower).finish()
}

/** Inverse of `encodeValidatorSetState`. */
export function decodeValidatorSetState(bytes: Uint8Array): { validators: Validator[]; proposer: Validator | undefined } {
  const validators: Validator[] = []
  let proposer: Validator | undefined
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field === 1) validators.push(decodeValidator(r.bytes()))
    else if (r.field === 2) proposer = decodeValidator(r.bytes())
    else r.skip()
  }
  return { validators, proposer }
}
