/**
 * Value codecs of the settings table: each turns a raw value — a typed TOML value from a file, or a
 * string from the environment or a flag — into the node's type, or throws an Error whose message says
 * what was wanted. `format` gives the value back as TOML writes it (round-trip).
 */
import { LOG_LEVELS, type LogFormat, type LogLevel } from '../utils/logger.js'
import { formatDuration, parseDuration } from './duration.js'
import { formatMinimumGasPrices, parseMinimumGasPrices } from './gas-price.js'
import { formatHostPort, formatLaddr, formatSocketAddress, parseHostPort, parseLaddr, parseSocketAddress } from './listen-address.js'
import {
  CLIENT_IDENTITIES,
  EVM_NAMESPACES,
  type ClientIdentity,
  type EvmNamespace,
  type HostPort,
  type SocketAddress,
} from './node-config.js'

/** A TOML value as the templates write it. */
export type TomlScalar = string | number | bigint | boolean
/** A TOML value or an array of them. */
export type TomlWritable = TomlScalar | TomlScalar[]

/** Parses and formats one kind of value. */
export interface Codec<T> {
  /** 'boolean' values become boolean flags (`--x` / `--no-x`); everything else takes a string. */
  flagKind: 'boolean' | 'string'
  /** Raw (TOML-typed or string) → value; throws Error(reason). */
  parse(raw: unknown): T
  /** Value → TOML. */
  format(value: T): TomlWritable
}

/** Shows a raw value in an error message: strings quoted, others as TOML would write them. */
export function showRaw(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw)
  if (Array.isArray(raw)) return `[${raw.map(showRaw).join(', ')}]`
  return String(raw)
}

/** `true`/`false` (TOML booleans, or the strings in any case). */
export const booleanCodec: Codec<boolean> = {
  flagKind: 'boolean',
  parse(raw) {
    if (typeof raw === 'boolean') return raw
    if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) return raw.trim().toLowerCase() === 'true'
    throw new Error(`want true or false, got ${showRaw(raw)}`)
  },
  format: (v) => v,
}

/** A non-negative integer not above `max` (default 2^53 − 1) and not below `min` (default 0). */
export function integerCodec(min = 0, max = Number.MAX_SAFE_INTEGER): Codec<number> {
  const want = min === 0 ? 'a non-negative integer' : `an integer ≥ ${min}`
  return {
    flagKind: 'string',
    parse(raw) {
      let value: number | undefined
      if (typeof raw === 'number' && Number.isInteger(raw)) value = raw
      else if (typeof raw === 'bigint') value = Number(raw)
      else if (typeof raw === 'string' && /^\s*-?[0-9]+\s*$/.test(raw)) value = Number(raw.trim())
      if (value === undefined) throw new Error(`want ${want}, got ${showRaw(raw)}`)
      if (value < min) throw new Error(`want ${want}, got ${showRaw(raw)}`)
      if (value > max) throw new Error(`must be at most ${max}, got ${showRaw(raw)}`)
      return value
    },
    format: (v) => v,
  }
}

/**
 * Largest value of a bigint setting: Evmos's `gas-cap` is a uint64, but a TOML integer is an int64,
 * so 2^63 − 1 is the most a file can hold.
 */
const MAX_TOML_INTEGER = (1n << 63n) - 1n

/** A non-negative integer up to 2^63 − 1, as bigint. */
export const uint64Codec: Codec<bigint> = {
  flagKind: 'string',
  parse(raw) {
    let value: bigint | undefined
    if (typeof raw === 'bigint') value = raw
    else if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = BigInt(raw)
    else if (typeof raw === 'string' && /^\s*-?[0-9]+\s*$/.test(raw)) value = BigInt(raw.trim())
    if (value === undefined || value < 0n) throw new Error(`want a non-negative integer, got ${showRaw(raw)}`)
    if (value > MAX_TOML_INTEGER) throw new Error(`must be at most ${MAX_TOML_INTEGER}, got ${showRaw(raw)}`)
    return value
  },
  format: (v) => (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v),
}

/** A non-negative finite decimal number. */
export const nonNegativeNumberCodec: Codec<number> = {
  flagKind: 'string',
  parse(raw) {
    const value =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'bigint'
          ? Number(raw)
          : typeof raw === 'string' && /^\s*-?[0-9]+(\.[0-9]+)?\s*$/.test(raw)
            ? Number(raw)
            : NaN
    if (!Number.isFinite(value) || value < 0) throw new Error(`want a non-negative number, got ${showRaw(raw)}`)
    return value
  },
  format: (v) => v,
}

/** A Go duration string ("500ms", "5s", "1m30s") → milliseconds, not negative. */
export const durationCodec: Codec<number> = {
  flagKind: 'string',
  parse(raw) {
    if (typeof raw !== 'string') throw new Error(`want a duration string such as "500ms" or "5s", got ${showRaw(raw)}`)
    const ms = parseDuration(raw.trim())
    if (ms < 0) throw new Error(`must not be negative, got ${showRaw(raw)}`)
    return ms
  },
  format: (v) => formatDuration(v),
}

/** Any string (trimmed); `nonEmpty` refuses "". */
export function stringCodec(nonEmpty = false): Codec<string> {
  return {
    flagKind: 'string',
    parse(raw) {
      if (typeof raw !== 'string') throw new Error(`want a string, got ${showRaw(raw)}`)
      if (nonEmpty && raw.trim() === '') throw new Error('must not be empty')
      return raw.trim()
    },
    format: (v) => v,
  }
}

/** A list of strings: a TOML array, or a comma-separated string (env, flags); blanks dropped. */
export const stringListCodec: Codec<string[]> = {
  flagKind: 'string',
  parse(raw) {
    const items =
      typeof raw === 'string'
        ? raw.split(',')
        : Array.isArray(raw) && raw.every((x) => typeof x === 'string')
          ? (raw as string[])
          : undefined
    if (items === undefined) throw new Error(`want a list of strings, got ${showRaw(raw)}`)
    return items.map((x) => x.trim()).filter((x) => x !== '')
  },
  format: (v) => [...v],
}

/** A list of strings written as one comma-separated string (CometBFT's `rpc_servers = "a,b"`); a TOML array is read too. */
export const commaListCodec: Codec<string[]> = {
  flagKind: 'string',
  parse: (raw) => stringListCodec.parse(raw),
  format: (v) => v.join(','),
}

/** One of `values`. */
export function enumCodec<T extends string>(values: readonly T[], what: string): Codec<T> {
  return {
    flagKind: 'string',
    parse(raw) {
      const text = typeof raw === 'string' ? raw.trim() : undefined
      if (text === undefined || !(values as readonly string[]).includes(text))
        throw new Error(`unknown ${what} ${showRaw(raw)} (known: ${values.join(', ')})`)
      return text as T
    },
    format: (v) => v,
  }
}

/** Log level: debug, info, warn, error, none. */
export const logLevelCodec: Codec<LogLevel> = enumCodec(LOG_LEVELS, 'log level')

/** Log format: plain or json. */
export const logFormatCodec: Codec<LogFormat> = enumCodec(['plain', 'json'] as const, 'log format')

/** `[json-rpc] client-identity`. */
export const clientIdentityCodec: Codec<ClientIdentity> = enumCodec(CLIENT_IDENTITIES, 'client identity')

/** EVM namespaces: each known, none repeated (Evmos: "repeated API namespace"). Comma string in TOML, as Evmos writes it. */
export const namespacesCodec: Codec<EvmNamespace[]> = {
  flagKind: 'string',
  parse(raw) {
    const names = stringListCodec.parse(raw)
    const seen = new Set<string>()
    for (const name of names) {
      if (!(EVM_NAMESPACES as readonly string[]).includes(name))
        throw new Error(`unknown namespace "${name}" (known: ${EVM_NAMESPACES.join(', ')})`)
      if (seen.has(name)) throw new Error(`repeated API namespace "${name}"`)
      seen.add(name)
    }
    return names as EvmNamespace[]
  },
  format: (v) => v.join(','),
}

/** `host:port`. */
export const hostPortCodec: Codec<HostPort> = {
  flagKind: 'string',
  parse(raw) {
    if (typeof raw !== 'string') throw new Error(`want "host:port", got ${showRaw(raw)}`)
    return parseHostPort(raw.trim())
  },
  format: formatHostPort,
}

/** `tcp://host:port`, or "" (disabled). */
export const laddrCodec: Codec<HostPort | undefined> = {
  flagKind: 'string',
  parse(raw) {
    if (typeof raw !== 'string') throw new Error(`want "tcp://host:port", got ${showRaw(raw)}`)
    return parseLaddr(raw.trim())
  },
  format: formatLaddr,
}

/** `tcp://host:port` or `unix:///path`. */
export const socketAddressCodec: Codec<SocketAddress> = {
  flagKind: 'string',
  parse(raw) {
    if (typeof raw !== 'string') throw new Error(`want "tcp://host:port" or "unix:///path", got ${showRaw(raw)}`)
    return parseSocketAddress(raw.trim())
  },
  format: formatSocketAddress,
}

/** CometBFT's comma-separated `<node id>@host:port` list (node id: 40 lower-case hex digits). */
export const peersCodec: Codec<string[]> = {
  flagKind: 'string',
  parse(raw) {
    const peers = stringListCodec.parse(raw)
    for (const peer of peers) {
      const at = peer.indexOf('@')
      if (at < 0 || !/^[0-9a-f]{40}$/.test(peer.slice(0, at)))
        throw new Error(`cannot parse peer "${peer}": want <node id>@host:port with a 40-digit hex node id`)
      parseHostPort(peer.slice(at + 1))
    }
    return peers
  },
  format: (v) => v.join(','),
}

/** `minimum-gas-prices` → wei (see gas-price.ts). */
export const gasPriceCodec: Codec<bigint> = {
  flagKind: 'string',
  parse(raw) {
    if (typeof raw === 'number' || typeof raw === 'bigint') return uint64Codec.parse(raw)
    if (typeof raw !== 'string') throw new Error(`want a string such as "0anodectl", got ${showRaw(raw)}`)
    return parseMinimumGasPrices(raw)
  },
  format: formatMinimumGasPrices,
}
