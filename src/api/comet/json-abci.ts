/**
 * JSON of the ABCI types as CometBFT's RPC writes them. `ExecTxResult`, `ResponseCheckTx`,
 * `ResponseQuery` and event attributes go through gogoproto jsonpb with `EmitDefaults`: every field
 * present, int64 as strings, nil bytes as null, `events` always an array. The rest (`Event` in plain
 * slices, `ResponseInfo`, `ValidatorUpdate`, proto `ConsensusParams`) go through cmtjson and honour
 * `omitempty`.
 */
import { bytesToBase64 } from '../../primitives/hex.js'
import { okExecTxResult, type AbciEvent, type ExecTxResult, type ValidatorUpdate } from '../../abci/types.js'
import type { CheckTxResponse, FinalizeBlockResponse, InfoResponse, QueryResponse } from '../../abci/application.js'
import type { JsonObject } from './wire-json.js'

/** Proto oneof name of an ed25519 key in `validator_updates` (`crypto/encoding/codec.go`). */
const PROTO_PUBKEY_ED25519 = 'tendermint.crypto.PublicKey_Ed25519'

const int64 = (v: bigint | number): string => v.toString()
const bytesOrNull = (b: Uint8Array): string | null => (b.length === 0 ? null : bytesToBase64(b))

/**
 * An ABCI event. `jsonpb` form (inside ExecTxResult/CheckTx): `type` and `attributes` always present.
 * cmtjson form (`finalize_block_events`): both `omitempty`.
 */
export function encodeEvent(e: AbciEvent, form: 'jsonpb' | 'cmtjson' = 'cmtjson'): JsonObject {
  const attributes = e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index }))
  if (form === 'jsonpb') return { type: e.type, attributes }
  return { type: e.type === '' ? undefined : e.type, attributes: attributes.length === 0 ? undefined : attributes }
}

/** `abci.ExecTxResult` (jsonpb): code, data, log, info, gas_wanted, gas_used, events, codespace. */
export function encodeExecTxResult(r: ExecTxResult): JsonObject {
  return {
    code: r.code,
    data: bytesOrNull(r.data),
    log: r.log,
    info: r.info,
    gas_wanted: int64(r.gasWanted),
    gas_used: int64(r.gasUsed),
    events: r.events.map((e) => encodeEvent(e, 'jsonpb')),
    codespace: r.codespace,
  }
}

/** The all-default ExecTxResult (`tx_result` of a broadcast_tx_commit whose CheckTx failed). */
export function emptyExecTxResult(): ExecTxResult {
  return okExecTxResult()
}

/** `abci.ResponseCheckTx` (jsonpb, v0.38 fields). */
export function encodeCheckTx(r: CheckTxResponse): JsonObject {
  return {
    code: r.code,
    data: bytesOrNull(r.data),
    log: r.log,
    info: r.info ?? '',
    gas_wanted: int64(r.gasWanted),
    gas_used: int64(r.gasUsed),
    events: r.events.map((e) => encodeEvent(e, 'jsonpb')),
    codespace: r.codespace,
  }
}

/** `abci.ValidatorUpdate` in block_results: proto-oneof key (`Sum` form), `power` omitted when 0. */
export function encodeValidatorUpdate(u: ValidatorUpdate): JsonObject {
  return {
    pub_key: { Sum: { type: PROTO_PUBKEY_ED25519, value: { ed25519: bytesToBase64(u.pubKey) } } },
    power: u.power === 0n ? undefined : int64(u.power),
  }
}

/** Proto `ConsensusParams` of `consensus_param_updates`: missing members and zero fields omitted (`max_age_duration` excepted). */
export function encodeConsensusParamUpdates(p: FinalizeBlockResponse['consensusParamUpdates']): JsonObject | null {
  if (!p) return null
  const nz = (v: bigint): string | undefined => (v === 0n ? undefined : int64(v))
  return {
    block: p.block && { max_bytes: nz(p.block.maxBytes), max_gas: nz(p.block.maxGas) },
    evidence: p.evidence && {
      max_age_num_blocks: nz(p.evidence.maxAgeNumBlocks),
      max_age_duration: int64(p.evidence.maxAgeDurationNs),
      max_bytes: nz(p.evidence.maxBytes),
    },
    validator: p.validator && { pub_key_types: p.validator.pubKeyTypes.length ? [...p.validator.pubKeyTypes] : undefined },
    version: p.version && { app: nz(p.version.app) },
    abci: p.abci && { vote_extensions_enable_height: nz(p.abci.voteExtensionsEnableHeight) },
  }
}

/** `abci.ResponseInfo` (cmtjson): every field omitted when empty or zero. */
export function encodeAbciInfo(i: InfoResponse): JsonObject {
  return {
    data: i.data === '' ? undefined : i.data,
    version: i.version === '' ? undefined : i.version,
    app_version: i.appVersion === 0n ? undefined : int64(i.appVersion),
    last_block_height: i.lastBlockHeight === 0 ? undefined : int64(i.lastBlockHeight),
    last_block_app_hash: i.lastBlockAppHash.length === 0 ? undefined : bytesToBase64(i.lastBlockAppHash),
  }
}

/** `abci.ResponseQuery` (jsonpb): `proofOps` camelCase, null when absent; key/value null when empty. */
export function encodeAbciQuery(r: QueryResponse): JsonObject {
  return {
    code: r.code,
    log: r.log,
    info: r.info,
    index: int64(r.index),
    key: bytesOrNull(r.key),
    value: bytesOrNull(r.value),
    proofOps: r.proofOps
      ? { ops: r.proofOps.map((op) => ({ type: op.type, key: bytesOrNull(op.key), data: bytesOrNull(op.data) })) }
      : null,
    height: int64(r.height),
    codespace: r.codespace,
  }
}
