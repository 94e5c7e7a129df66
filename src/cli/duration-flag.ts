/**
 * A duration flag in the one form every duration takes, the config files' Go form (`500ms`, `5s`,
 * `1m30s`); a bare number still means milliseconds, as these flags first took. The parsed value is in ms.
 */
import { Flags } from '@oclif/core'
import { parseDuration } from '../config/duration.js'

/** Parses `input` for `--name`: a Go duration, or a bare number of milliseconds; at least `minMs`. */
export function parseDurationFlag(input: string, name: string, minMs = 0): number {
  const text = input.trim()
  let ms: number
  try {
    ms = /^\d+$/.test(text) ? Number(text) : parseDuration(text)
  } catch {
    throw new Error(`invalid --${name} "${input}": want a duration such as 500ms, 5s or 1m30s`)
  }
  if (!(ms >= minMs)) throw new Error(`invalid --${name} "${input}": want at least ${minMs} ms`)
  return ms
}

/** An oclif flag of {@link parseDurationFlag}. */
export function durationFlag(opts: { name: string; summary: string; default: string; minMs?: number }) {
  return Flags.custom<number>({
    summary: `${opts.summary} A duration such as 500ms, 5s or 1m (a bare number is ms) [default: ${opts.default}].`,
    parse: async (input) => parseDurationFlag(input, opts.name, opts.minMs),
    default: async () => parseDurationFlag(opts.default, opts.name),
  })()
}
