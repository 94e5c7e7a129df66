/**
 * `tendermint.types.ConsensusParams`: block{max_bytes=1, max_gas=2}, evidence{max_age_num_blocks=1,
 * max_age_duration=2 (Duration, always written), max_bytes=3}, validator{pub_key_types=1},
 * version{app=1}, abci{vote_extensions_enable_height=1}, at fields 1–5. Each group is a nullable message:
 * InitChain carries all of them, a FinalizeBlock update only the groups it changes.
 */
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'
import type { ConsensusParams } from '../types.js'
import { decodeDuration, encodeDuration } from './scalars.js'

/** The parameters of a message that sets none (every proto3 field at its zero value). */
export function zeroConsensusParams(): ConsensusParams {
  return {
    block: { maxBytes: 0n, maxGas: 0n },
    evidence: { maxAgeNumBlocks: 0n, maxAgeDurationNs: 0n, maxBytes: 0n },
    validator: { pubKeyTypes: [] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  }
}

export function encodeConsensusParams(p: Partial<ConsensusParams>): Uint8Array {
  const w = new ProtoWriter()
  if (p.block) w.message(1, new ProtoWriter().int(1, p.block.maxBytes).int(2, p.block.maxGas).finish())
  if (p.evidence) {
    const e = p.evidence
    const body = new ProtoWriter().int(1, e.maxAgeNumBlocks).message(2, encodeDuration(e.maxAgeDurationNs)).int(3, e.maxBytes).finish()
    w.message(2, body)
  }
  if (p.validator) {
    const body = new ProtoWriter()
    for (const type of p.validator.pubKeyTypes) body.lenDelimited(1, new TextEncoder().encode(type))
    w.message(3, body.finish())
  }
  if (p.version) w.message(4, new ProtoWriter().uint(1, p.version.app).finish())
  if (p.abci) w.message(5, new ProtoWriter().int(1, p.abci.voteExtensionsEnableHeight).finish())
  return w.finish()
}

/** The groups present in the message, each with its unset fields at zero. */
export function decodeConsensusParams(body: Uint8Array): Partial<ConsensusParams> {
  const out: Partial<ConsensusParams> = {}
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) out.block = decodeBlockParams(r.bytes())
    else if (r.field === 2) out.evidence = decodeEvidenceParams(r.bytes())
    else if (r.field === 3) out.validator = decodeValidatorParams(r.bytes())
    else if (r.field === 4) out.version = decodeVersionParams(r.bytes())
    else if (r.field === 5) out.abci = decodeAbciParams(r.bytes())
    else r.skip()
  }
  return out
}

function decodeBlockParams(body: Uint8Array): ConsensusParams['block'] {
  const p = zeroConsensusParams().block
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) p.maxBytes = r.int64()
    else if (r.field === 2) p.maxGas = r.int64()
    else r.skip()
  }
  return p
}

function decodeEvidenceParams(body: Uint8Array): ConsensusParams['evidence'] {
  const p = zeroConsensusParams().evidence
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) p.maxAgeNumBlocks = r.int64()
    else if (r.field === 2) p.maxAgeDurationNs = decodeDuration(r.bytes())
    else if (r.field === 3) p.maxBytes = r.int64()
    else r.skip()
  }
  return p
}

function decodeValidatorParams(body: Uint8Array): ConsensusParams['validator'] {
  const p = zeroConsensusParams().validator
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) p.pubKeyTypes.push(r.string())
    else r.skip()
  }
  return p
}

function decodeVersionParams(body: Uint8Array): ConsensusParams['version'] {
  const p = zeroConsensusParams().version
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) p.app = r.uint64()
    else r.skip()
  }
  return p
}

function decodeAbciParams(body: Uint8Array): ConsensusParams['abci'] {
  const p = zeroConsensusParams().abci
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) p.voteExtensionsEnableHeight = r.int64()
    else r.skip()
  }
  return p
}
