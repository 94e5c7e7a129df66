/**
 * The log filter object (spec "Log filter object", geth `FilterCriteria.UnmarshalJSON`) as a parameter
 * codec. `fromBlock`/`toBlock` default to `latest` when resolved; `blockHash` (also spelled
 * `blockhash`, as the spec writes it and Go's case-insensitive decoder accepts) excludes both.
 */
import { DecodeError, decodeFilterHex, hash, jsonKind, type Codec } from '../../rpc/codecs.js'
import { blockNumberOrTag, type BlockNumberOrTag } from './block-params.js'

/** geth `maxTopics`: topic positions a filter may constrain. */
export const MAX_TOPICS = 4
/** geth `maxAddresses` (1.15): addresses one filter may list. */
export const MAX_ADDRESSES = 1000

/** geth's `FilterCriteria.UnmarshalJSON` decodes through an inner struct named `input`: Go's errors name it. */
const INPUT_STRUCT = 'input'

/** A decoded filter, range still as tags/numbers. */
export interface LogFilter {
  blockHash: Uint8Array | undefined
  fromBlock: BlockNumberOrTag | undefined
  toBlock: BlockNumberOrTag | undefined
  /** Empty = any address. */
  addresses: Uint8Array[]
  /** Positional; null = wildcard; array = OR. */
  topics: (Uint8Array[] | null)[]
}

function decodeAddresses(raw: unknown): Uint8Array[] {
  if (raw === undefined || raw === null) return []
  if (typeof raw === 'string') {
    try {
      return [decodeFilterHex(raw, 20, 'address')]
    } catch (err) {
      throw new DecodeError(`invalid address: ${(err as Error).message}`)
    }
  }
  if (!Array.isArray(raw)) throw new DecodeError('invalid addresses in query')
  if (raw.length > MAX_ADDRESSES) throw new DecodeError('exceed max addresses')
  return raw.map((item: unknown, i) => {
    if (typeof item !== 'string') throw new DecodeError(`non-string address at index ${i}`)
    try {
      return decodeFilterHex(item, 20, 'address')
    } catch (err) {
      throw new DecodeError(`invalid address at index ${i}: ${(err as Error).message}`)
    }
  })
}

function decodeTopics(raw: unknown): (Uint8Array[] | null)[] {
  if (raw === undefined || raw === null) return []
  // geth decodes `topics` as a Go slice first, so a non-array is a type error of that field.
  if (!Array.isArray(raw)) throw new DecodeError(jsonKind(raw), '[]interface {}', { struct: INPUT_STRUCT, name: 'topics' })
  if (raw.length > MAX_TOPICS) throw new DecodeError('exceed max topics')
  return raw.map((position: unknown) => {
    if (position === null) return null
    if (typeof position === 'string') return [decodeFilterHex(position, 32, 'topic')]
    if (!Array.isArray(position)) throw new DecodeError('invalid topic(s)')
    const options: Uint8Array[] = []
    for (const topic of position as unknown[]) {
      if (topic === null) return null // a null alternative matches anything
      if (typeof topic !== 'string') throw new DecodeError('invalid topic(s)')
      options.push(decodeFilterHex(topic, 32, 'topic'))
    }
    return options
  })
}

function decodeBound(obj: Record<string, unknown>, key: 'fromBlock' | 'toBlock'): BlockNumberOrTag | undefined {
  const value = obj[key]
  return value === undefined || value === null ? undefined : blockNumberOrTag(value)
}

/**
 * Decodes a filter object (eth_getLogs, eth_newFilter). `null` is the empty filter (geth decodes it
 * without error: the latest block, any address).
 */
export const logFilter: Codec<LogFilter> = (value) => {
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) throw new DecodeError(jsonKind(value), 'filters.input')
  const obj = (value ?? {}) as Record<string, unknown>
  const rawHash = obj.blockHash ?? obj.blockhash ?? undefined
  const fromBlock = decodeBound(obj, 'fromBlock')
  const toBlock = decodeBound(obj, 'toBlock')
  let blockHash: Uint8Array | undefined
  if (rawHash !== undefined) {
    if (fromBlock !== undefined || toBlock !== undefined)
      throw new DecodeError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
    try {
      blockHash = hash(rawHash)
    } catch (err) {
      throw err instanceof DecodeError ? err.inField(INPUT_STRUCT, 'blockHash') : err
    }
  }
  return { blockHash, fromBlock, toBlock, addresses: decodeAddresses(obj.address), topics: decodeTopics(obj.topics) }
}
