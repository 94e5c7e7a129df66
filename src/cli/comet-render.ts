/**
 * What the consensus-RPC tables show, computed from the node's results: the EVM hash a tx's
 * `ethereum_tx` event carries, the hashes of raw mempool txs, commit signature flags, the
 * `height/round/step` of `consensus_state`, and event attributes as `key=value` text.
 */
import { keccak256, sha256 } from '../crypto/index.js'
import { bytesToHex, bytesToUpperHex } from '../primitives/hex.js'
import { isRoundStep, roundStepName } from '../consensus/round-step.js'
import type { CometEvent, CometExecTxResult, CometTx } from './comet-types.js'

/** Attribute values longer than this (a 256-byte bloom is 514 characters) are shortened in tables. */
export const MAX_ATTRIBUTE_CHARS = 80

/** Event type and attribute key under which the node records the EVM (Keccak) hash of a tx (Evmos' names). */
export const EVM_TX_EVENT = 'ethereum_tx'
export const EVM_TX_HASH_KEY = 'ethereumTxHash'

/** `block_id_flag` names (CometBFT `types/block.go` BlockIDFlag). */
const BLOCK_ID_FLAGS: Record<number, string> = { 1: 'absent', 2: 'commit', 3: 'nil' }

/** The value of the first attribute `key` of an event of type `type`, if any. */
export function attributeOf(events: readonly CometEvent[] | undefined, type: string, key: string): string | undefined {
  for (const e of events ?? []) if (e.type === type) for (const a of e.attributes ?? []) if (a.key === key) return a.value
  return undefined
}

/** The EVM hash of an executed tx, from its `ethereum_tx.ethereumTxHash` attribute ('' when it has none). */
export function evmHashOf(result: CometExecTxResult | undefined): string {
  return attributeOf(result?.events, EVM_TX_EVENT, EVM_TX_HASH_KEY) ?? ''
}

/** The columns of a tx table. */
export const TX_COLUMNS = ['height', 'index', 'consensus hash', 'EVM hash', 'code', 'gas used']

/** One row of a tx table (see {@link TX_COLUMNS}). */
export function txRow(tx: CometTx): unknown[] {
  return [tx.height, tx.index, tx.hash, evmHashOf(tx.tx_result), tx.tx_result.code ?? 0, tx.tx_result.gas_used ?? '0']
}

/** The consensus (SHA-256, upper hex) and EVM (Keccak-256, 0x hex) hashes of a base64 raw transaction. */
export function hashesOfRawTx(base64: string): { consensusHash: string; evmHash: string; bytes: number } {
  const raw = new Uint8Array(Buffer.from(base64, 'base64'))
  return { consensusHash: bytesToUpperHex(sha256(raw)), evmHash: bytesToHex(keccak256(raw)), bytes: raw.length }
}

/** A commit signature's `block_id_flag` as a word. */
export function blockIdFlagName(flag: number): string {
  return BLOCK_ID_FLAGS[flag] ?? `unknown (${flag})`
}

/** `consensus_state`'s `"H/R/S"` (S the numeric step) with the step named; undefined when malformed. */
export function parseHeightRoundStep(text: string): { height: number; round: number; step: string } | undefined {
  const m = /^(\d+)\/(-?\d+)\/(\d+)$/.exec(text)
  if (!m) return undefined
  const step = Number(m[3])
  return { height: Number(m[1]), round: Number(m[2]), step: isRoundStep(step) ? roundStepName(step) : String(step) }
}

/** A value cut to {@link MAX_ATTRIBUTE_CHARS} characters, saying how long it was. */
export function shorten(value: string): string {
  return value.length <= MAX_ATTRIBUTE_CHARS ? value : `${value.slice(0, MAX_ATTRIBUTE_CHARS - 1)}… (${value.length} chars)`
}

/** An event's attributes as `key=value` lines, long values shortened. */
export function formatAttributes(event: CometEvent): string {
  return (event.attributes ?? []).map((a) => `${a.key}=${shorten(a.value)}`).join('\n')
}
