/**
 * Source-text access to JSON that JSON.parse has already accepted: the exact text of a top-level member
 * or array element, and the nesting depth. JSON.parse keeps no source positions (Node 20 has no
 * `context.source` in revivers), yet the wire needs the text as sent: geth echoes a request id as the
 * bytes it received (`jsonrpcMessage.ID` is a `json.RawMessage`, rpc/json.go `appendMessage`), and
 * CometBFT quotes the raw text of a param it refuses (`invalid 64-bit integer encoding "1e3"`).
 * Every function assumes valid JSON (the caller parsed it first) and only finds boundaries.
 */

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, isJsonSpace, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../utils/json-chars.js'

/**
 * Go `encoding/json`'s nesting limit (`maxNestingDepth` in scanner.go): a value nested deeper than
 * 10,000 arrays/objects is a syntax error, `exceeded max depth`. geth and CometBFT decode with it.
 */
export const GO_MAX_NESTING_DEPTH = 10_000

function skipSpace(text: string, at: number): number {
  while (at < text.length && isJsonSpace(text.charCodeAt(at))) at++
  return at
}

/** The index after the string that opens at `at` (a quote). */
function skipString(text: string, at: number): number {
  let i = at + 1
  for (;;) {
    const q = text.indexOf('"', i)
    if (q < 0) return text.length
    // The quote is escaped when an odd number of backslashes precedes it.
    let slashes = 0
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++
    if (slashes % 2 === 0) return q + 1
    i = q + 1
  }
}

/** The index after the value that starts at `at` (no leading space). */
function skipValue(text: string, at: number): number {
  const c = text.charCodeAt(at)
  if (c === QUOTE) return skipString(text, at)
  if (c !== OPEN_BRACKET && c !== OPEN_BRACE) {
    // A number or a literal: up to the next delimiter.
    let i = at + 1
    while (i < text.length) {
      const d = text.charCodeAt(i)
      if (d === COMMA || d === CLOSE_BRACKET || d === CLOSE_BRACE || isJsonSpace(d)) break
      i++
    }
    return i
  }
  let depth = 0
  let i = at
  while (i < text.length) {
    const d = text.charCodeAt(i)
    if (d === QUOTE) {
      i = skipString(text, i)
      continue
    }
    if (d === OPEN_BRACKET || d === OPEN_BRACE) depth++
    else if ((d === CLOSE_BRACKET || d === CLOSE_BRACE) && --depth === 0) return i + 1
    i++
  }
  return i
}

/** Whether the string whose text runs from `start` (its opening quote) to `end` equals `"name"` without escapes. */
function isKey(text: string, start: number, end: number, name: string): boolean {
  return end - start === name.length + 2 && text.startsWith(name, start + 1)
}

/**
 * The source text of the member `name` of the object `text` holds, or undefined when it has none or
 * is no object. With duplicate keys the last one counts, as in JSON.parse and Go's decoder; `first`
 * stops at the first one instead (the caller checks it against the parsed value: the scan then ends
 * early, which matters on the hot path). A key spelled with escapes (`"\u0069d"`) is not recognised.
 */
export function memberSource(text: string, name: string, first = false): string | undefined {
  let i = skipSpace(text, 0)
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined
  let found: string | undefined
  i = skipSpace(text, i + 1)
  while (i < text.length && text.charCodeAt(i) === QUOTE) {
    const keyEnd = skipString(text, i)
    const match = isKey(text, i, keyEnd, name)
    i = skipSpace(text, keyEnd)
    if (text.charCodeAt(i) !== COLON) return found
    const valueStart = skipSpace(text, i + 1)
    const valueEnd = skipValue(text, valueStart)
    if (match) {
      found = text.slice(valueStart, valueEnd)
      if (first) return found
    }
    i = skipSpace(text, valueEnd)
    if (text.charCodeAt(i) !== COMMA) break
    i = skipSpace(text, i + 1)
  }
  return found
}

/** Whether the value text at `at` is exactly `expected` (a scalar token ends at a delimiter). */
function valueIs(text: string, at: number, expected: string): boolean {
  if (!text.startsWith(expected, at)) return false
  const next = text.charCodeAt(at + expected.length)
  return next === COMMA || next === CLOSE_BRACE || isJsonSpace(next)
}

/** Where the value of the key whose quote is at `key` starts (after `"name"`, spaces, `:`), or -1. */
function valueAfterKey(text: string, key: number, name: string): number {
  if (key <= 0 || text.charCodeAt(key - 1) === BACKSLASH) return -1
  const colon = skipSpace(text, key + name.length + 2)
  return text.charCodeAt(colon) === COLON ? skipSpace(text, colon + 1) : -1
}

/** Whether text[from, to) holds none of the given characters (native scans, no loop in JS). */
function lacks(text: string, from: number, to: number, chars: string): boolean {
  for (const c of chars) {
    const at = text.indexOf(c, from)
    if (at >= 0 && at < to) return false
  }
  return true
}

/**
 * `expected` when the top-level member `name` of the object `text` is provably written exactly so,
 * else what {@link memberSource} finds. The proof costs a few native substring searches where a scan
 * costs a loop over every character before the member: the hot path of the EVM RPC calls it for every
 * request. A key is top-level when no bracket comes between it and the opening brace (clients that
 * put the id first: viem, web3.js), or when after its value only one closing brace and no other
 * bracket follows (clients that put it last: ethers); anything else takes the scan.
 */
export function memberSourceIf(text: string, name: string, expected: string): string | undefined {
  const needle = '"' + name + '"'
  const open = skipSpace(text, 0)
  const first = text.indexOf(needle, open)
  if (first > open) {
    const value = valueAfterKey(text, first, name)
    if (value > 0 && valueIs(text, value, expected) && lacks(text, open + 1, first, '{[\\')) return expected
    const last = text.lastIndexOf(needle)
    const lastValue = last === first ? value : valueAfterKey(text, last, name)
    if (lastValue > 0 && valueIs(text, lastValue, expected)) {
      const tail = lastValue + expected.length
      const close = text.lastIndexOf('}')
      if (text.indexOf('}', tail) === close && lacks(text, tail, text.length, '{[]\\')) return expected
    }
  }
  return memberSource(text, name)
}

/** The source texts of the elements of the array `text` holds (empty when it is no array). */
export function elementSources(text: string): string[] {
  const out: string[] = []
  let i = skipSpace(text, 0)
  if (text.charCodeAt(i) !== OPEN_BRACKET) return out
  i = skipSpace(text, i + 1)
  if (text.charCodeAt(i) === CLOSE_BRACKET) return out
  while (i < text.length) {
    const end = skipValue(text, i)
    out.push(text.slice(i, end))
    i = skipSpace(text, end)
    if (text.charCodeAt(i) !== COMMA) break
    i = skipSpace(text, i + 1)
  }
  return out
}

/**
 * Whether `text` nests arrays/objects deeper than `max` levels. Cheap for ordinary bodies: a text
 * shorter than 2·(max+1) characters cannot nest that deep, and strings are skipped with indexOf.
 */
export function exceedsDepth(text: string, max = GO_MAX_NESTING_DEPTH): boolean {
  if (text.length < 2 * (max + 1)) return false
  let depth = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = skipString(text, i)
      continue
    }
    if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--
    i++
  }
  return false
}
