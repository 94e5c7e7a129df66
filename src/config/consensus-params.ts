/**
 * `consensus_params` of genesis.json (CometBFT v0.38 `types/params.go`): defaults, cmtjson encoding
 * (int64 as decimal strings) and validation (`ConsensusParams.ValidateBasic`).
 */
import type { GenesisConsensusParams as ConsensusParams } from './genesis-doc.js'

/**
 * Consensus parameters of a new chain: CometBFT v0.38 `DefaultConsensusParams` except the block
 * size (22020096 = 21 MiB, the Cosmos SDK's default) and the gas limit (30,000,000, Ethereum
 * mainnet's block gas limit; CometBFT's -1 "unlimited" cannot be an EVM block's gasLimit).
 */
export function defaultConsensusParams(): ConsensusParams {
  return {
    block: { maxBytes: 22_020_096n, maxGas: 30_000_000n },
    // 100000 blocks and 48 h (in ns): CometBFT DefaultEvidenceParams.
    evidence: { maxAgeNumBlocks: 100_000n, maxAgeDurationNs: 172_800_000_000_000n, maxBytes: 1_048_576n },
    validator: { pubKeyTypes: ['ed25519'] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  }
}

/** cmtjson form of consensus params (int64 as strings). */
export function encodeConsensusParams(p: ConsensusParams): Record<string, unknown> {
  return {
    block: { max_bytes: p.block.maxBytes.toString(), max_gas: p.block.maxGas.toString() },
    evidence: {
      max_age_num_blocks: p.evidence.maxAgeNumBlocks.toString(),
      max_age_duration: p.evidence.maxAgeDurationNs.toString(),
      max_bytes: p.evidence.maxBytes.toString(),
    },
    validator: { pub_key_types: [...p.validator.pubKeyTypes] },
    version: { app: p.version.app.toString() },
    abci: { vote_extensions_enable_height: p.abci.voteExtensionsEnableHeight.toString() },
  }
}

/** CometBFT `MaxBlockSizeBytes`: 100 MiB. */
export const MAX_BLOCK_SIZE_BYTES = 104_857_600n

/** The ABCI key types nodectl's validators can use: ed25519 only, the key type of CometBFT's validator files. */
export const SUPPORTED_PUBKEY_TYPES = ['ed25519'] as const

/** Reads `obj[key]` as an int64 written as a decimal string (cmtjson) or a JSON integer; throws Error(`<field>: …`). */
export function readInt64(obj: Record<string, unknown>, key: string, field: string): bigint {
  const raw = obj[key]
  if (typeof raw === 'string' && /^-?[0-9]+$/.test(raw)) {
    const value = BigInt(raw)
    if (value >= -(1n << 63n) && value < 1n << 63n) return value
  }
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return BigInt(raw)
  throw new Error(`${field}: want an integer as a decimal string, got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}`)
}

/** Reads `obj[key]` as a JSON object; throws Error(`<field>: …`). */
export function readObject(obj: Record<string, unknown>, key: string, field: string): Record<string, unknown> {
  const raw = obj[key]
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${field}: want an object, got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}`)
  return raw as Record<string, unknown>
}

/**
 * Decodes and validates `consensus_params` (CometBFT `ValidateBasic`, plus nodectl's limits: a
 * positive gas limit, ed25519 keys only, no vote extensions). Missing sections take their defaults.
 * Throws Error(`consensus_params.<field>: …`).
 */
export function decodeConsensusParams(json: unknown): ConsensusParams {
  const d = defaultConsensusParams()
  if (json === undefined || json === null) return d
  if (typeof json !== 'object' || Array.isArray(json)) throw new Error(`consensus_params: want an object`)
  const root = json as Record<string, unknown>
  const section = (key: string): Record<string, unknown> | undefined =>
    root[key] === undefined ? undefined : readObject(root, key, `consensus_params.${key}`)
  const p = d
  const block = section('block')
  if (block)
    p.block = {
      maxBytes: readInt64(block, 'max_bytes', 'consensus_params.block.max_bytes'),
      maxGas: readInt64(block, 'max_gas', 'consensus_params.block.max_gas'),
    }
  const evidence = section('evidence')
  if (evidence) {
    p.evidence = {
      maxAgeNumBlocks: readInt64(evidence, 'max_age_num_blocks', 'consensus_params.evidence.max_age_num_blocks'),
      maxAgeDurationNs: readInt64(evidence, 'max_age_duration', 'consensus_params.evidence.max_age_duration'),
      maxBytes: readInt64(evidence, 'max_bytes', 'consensus_params.evidence.max_bytes'),
    }
  }
  const validator = section('validator')
  if (validator) {
    const types = validator.pub_key_types
    if (!Array.isArray(types) || !types.every((t) => typeof t === 'string'))
      throw new Error('consensus_params.validator.pub_key_types: want a list of strings')
    p.validator = { pubKeyTypes: [...(types as string[])] }
  }
  const version = section('version')
  if (version) p.version = { app: readInt64(version, 'app', 'consensus_params.version.app') }
  const abci = section('abci')
  if (abci)
    p.abci = {
      voteExtensionsEnableHeight: readInt64(abci, 'vote_extensions_enable_height', 'consensus_params.abci.vote_extensions_enable_height'),
    }
  validateConsensusParams(p)
  return p
}

/** CometBFT's `ConsensusParams.ValidateBasic` with nodectl's stricter limits; throws Error(`consensus_params.<field>: …`). */
export function validateConsensusParams(p: ConsensusParams): void {
  const f = 'consensus_params.'
  if (p.block.maxBytes < 1n || p.block.maxBytes > MAX_BLOCK_SIZE_BYTES)
    throw new Error(`${f}block.max_bytes: must be from 1 to ${MAX_BLOCK_SIZE_BYTES}, got ${p.block.maxBytes}`)
  if (p.block.maxGas < 1n) throw new Error(`${f}block.max_gas: must be positive (it is the EVM block gas limit), got ${p.block.maxGas}`)
  if (p.evidence.maxAgeNumBlocks < 1n)
    throw new Error(`${f}evidence.max_age_num_blocks: must be positive, got ${p.evidence.maxAgeNumBlocks}`)
  if (p.evidence.maxAgeDurationNs < 1n)
    throw new Error(`${f}evidence.max_age_duration: must be positive, got ${p.evidence.maxAgeDurationNs}`)
  if (p.evidence.maxBytes < 0n || p.evidence.maxBytes > p.block.maxBytes)
    throw new Error(`${f}evidence.max_bytes: must be from 0 to block.max_bytes (${p.block.maxBytes}), got ${p.evidence.maxBytes}`)
  if (p.validator.pubKeyTypes.length === 0) throw new Error(`${f}validator.pub_key_types: must list at least one key type`)
  for (const t of p.validator.pubKeyTypes) {
    if (!(SUPPORTED_PUBKEY_TYPES as readonly string[]).includes(t))
      throw new Error(`${f}validator.pub_key_types: unsupported key type "${t}" (supported: ${SUPPORTED_PUBKEY_TYPES.join(', ')})`)
  }
  if (p.version.app < 0n) throw new Error(`${f}version.app: must not be negative, got ${p.version.app}`)
  if (p.abci.voteExtensionsEnableHeight !== 0n)
    throw new Error(`${f}abci.vote_extensions_enable_height: vote extensions are not supported, must be "0"`)
}
