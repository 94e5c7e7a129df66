/**
 * Decoding of the `broadcast_evidence` argument: cmtjson's typed
 * `{"type":"tendermint/DuplicateVoteEvidence","value":{vote_a, vote_b, TotalVotingPower, ValidatorPower, Timestamp}}`
 * with votes as `types.Vote` JSON (the inverse of `encodeEvidence` in json.ts). The protobuf-JSON names
 * (`total_voting_power`, `validator_power`, `timestamp`) are accepted too.
 */
import { base64ToBytes, hexToBytes } from '../../primitives/hex.js'
import { parseRfc3339, type Timestamp } from '../../utils/time.js'
import { SignedMsgType, type BlockID, type DuplicateVoteEvidence, type Vote } from '../../comet/types.js'
import { EVIDENCE_TYPE_DUPLICATE_VOTE } from './json.js'

type Obj = Record<string, unknown>

function object(v: unknown, field: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${field}: expected an object`)
  return v as Obj
}

function int64(v: unknown, field: string): bigint {
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) return BigInt(v)
  throw new Error(`${field}: invalid 64-bit integer encoding ${JSON.stringify(JSON.stringify(v) ?? '')}, expected string`)
}

function int32(v: unknown, field: string): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v
  throw new Error(`${field}: expected a number`)
}

function hex(v: unknown, field: string): Uint8Array {
  if (typeof v !== 'string') throw new Error(`${field}: invalid hex string`)
  return hexToBytes(v)
}

function b64(v: unknown, field: string): Uint8Array {
  if (v === null || v === undefined) return new Uint8Array(0)
  if (typeof v !== 'string') throw new Error(`${field}: expected base64`)
  return base64ToBytes(v)
}

function time(v: unknown, field: string): Timestamp {
  if (typeof v !== 'string') throw new Error(`${field}: expected an RFC3339 time`)
  return parseRfc3339(v)
}

function blockId(v: unknown, field: string): BlockID {
  const o = object(v, field)
  const parts = object(o.parts, `${field}.parts`)
  return {
    hash: hex(o.hash, `${field}.hash`),
    partSetHeader: { total: int32(parts.total, `${field}.parts.total`), hash: hex(parts.hash, `${field}.parts.hash`) },
  }
}

/** `types.Vote` JSON. */
export function decodeVoteJson(v: unknown, field = 'vote'): Vote {
  const o = object(v, field)
  const type = int32(o.type, `${field}.type`)
  if (type !== SignedMsgType.Prevote && type !== SignedMsgType.Precommit) throw new Error(`${field}: invalid vote type ${type}`)
  return {
    type,
    height: Number(int64(o.height, `${field}.height`)),
    round: int32(o.round, `${field}.round`),
    blockId: blockId(o.block_id, `${field}.block_id`),
    timestamp: time(o.timestamp, `${field}.timestamp`),
    validatorAddress: hex(o.validator_address, `${field}.validator_address`),
    validatorIndex: int32(o.validator_index, `${field}.validator_index`),
    signature: b64(o.signature, `${field}.signature`),
  }
}

/** Typed evidence JSON; only DuplicateVoteEvidence exists on this chain. */
export function decodeEvidenceJson(v: unknown): DuplicateVoteEvidence {
  const o = object(v, 'evidence')
  if (o.type !== EVIDENCE_TYPE_DUPLICATE_VOTE) throw new Error(`unknown type ${JSON.stringify(o.type)}`)
  const e = object(o.value, 'evidence.value')
  return {
    voteA: decodeVoteJson(e.vote_a, 'vote_a'),
    voteB: decodeVoteJson(e.vote_b, 'vote_b'),
    totalVotingPower: int64(e.TotalVotingPower ?? e.total_voting_power, 'TotalVotingPower'),
    validatorPower: int64(e.ValidatorPower ?? e.validator_power, 'ValidatorPower'),
    timestamp: time(e.Timestamp ?? e.timestamp, 'Timestamp'),
  }
}
