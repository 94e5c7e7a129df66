/**
 * Parsing of command-line values into JSON-RPC parameters: block numbers/tags, addresses, hashes,
 * topics. Errors are plain `Error`s whose message names the value and what is wanted; commands
 * turn them into one line.
 */
import { UsageError } from './failure.js'

/** Block tags of the execution-apis `BlockTag`. */
export const BLOCK_TAGS = ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const

/** A block number as the node wants it: a tag or a hex QUANTITY. */
export type BlockNumberOrTag = (typeof BLOCK_TAGS)[number] | `0x${string}`

/** A block chosen on the command line: a number/tag, or a 32-byte hash. */
export type BlockSelector = { kind: 'number'; value: BlockNumberOrTag } | { kind: 'hash'; value: `0x${string}` }

/** Parses `latest`, `12`, `0xc` or a 32-byte block hash. */
export function parseBlockSelector(input: string): BlockSelector {
  if (/^0x[0-9a-fA-F]{64}$/.test(input)) return { kind: 'hash', value: input as `0x${string}` }
  return { kind: 'number', value: parseBlockNumber(input) }
}

/** Parses `latest` (or another tag), a decimal number or a hex QUANTITY. */
export function parseBlockNumber(input: string): BlockNumberOrTag {
  const lower = input.toLowerCase()
  if ((BLOCK_TAGS as readonly string[]).includes(lower)) return lower as BlockNumberOrTag
  if (/^[0-9]+$/.test(input)) return `0x${BigInt(input).toString(16)}`
  if (/^0x[0-9a-fA-F]{1,16}$/.test(input)) return `0x${BigInt(input).toString(16)}`
  throw new UsageError(`invalid block "${input}": want a number, a block hash or one of ${BLOCK_TAGS.join(', ')}`)
}

/** Checks a 20-byte hex address. */
function parseAddress(input: string): `0x${string}` {
  if (!/^0x[0-9a-fA-F]{40}$/.test(input)) throw new UsageError(`invalid address "${input}": want 0x followed by 40 hex digits`)
  return input as `0x${string}`
}

/** Checks a 32-byte hex hash. */
export function parseHash(input: string, what = 'hash'): `0x${string}` {
  if (!/^0x[0-9a-fA-F]{64}$/.test(input)) throw new UsageError(`invalid ${what} "${input}": want 0x followed by 64 hex digits`)
  return input as `0x${string}`
}

/** A storage slot: decimal or hex, as a 32-byte-or-less hex QUANTITY. */
export function parseSlot(input: string): `0x${string}` {
  if (/^[0-9]+$/.test(input)) return `0x${BigInt(input).toString(16)}`
  if (/^0x[0-9a-fA-F]{1,64}$/.test(input)) return input as `0x${string}`
  throw new UsageError(`invalid storage slot "${input}": want a number or up to 32 hex bytes`)
}

/**
 * Topic filter positions from repeated `--topic` flags: each flag is one position; `null`, `any` or
 * `*` match anything; several hashes separated by commas match any of them.
 */
export function parseTopics(inputs: readonly string[] | undefined): (string | string[] | null)[] | undefined {
  if (!inputs || inputs.length === 0) return undefined
  return inputs.map((input) => {
    if (input === 'null' || input === 'any' || input === '*' || input === '') return null
    const options = input.split(',').map((t) => parseHash(t.trim(), 'topic'))
    return options.length === 1 ? options[0]! : options
  })
}

/** A logs filter object (`eth_getLogs`, `eth_newFilter`, `eth_subscribe logs`). */
export interface LogFilter {
  fromBlock?: BlockNumberOrTag
  toBlock?: BlockNumberOrTag
  address?: `0x${string}` | `0x${string}`[]
  topics?: (string | string[] | null)[]
}

/** Builds a logs filter from flags; absent flags are left out (node defaults apply). */
export function buildLogFilter(flags: { from?: string; to?: string; address?: string[]; topic?: string[] }): LogFilter {
  const filter: LogFilter = {}
  if (flags.from !== undefined) filter.fromBlock = parseBlockNumber(flags.from)
  if (flags.to !== undefined) filter.toBlock = parseBlockNumber(flags.to)
  if (flags.address && flags.address.length > 0) {
    const addresses = flags.address.flatMap((a) => a.split(',')).map((a) => parseAddress(a.trim()))
    filter.address = addresses.length === 1 ? addresses[0]! : addresses
  }
  const topics = parseTopics(flags.topic)
  if (topics) filter.topics = topics
  return filter
}
