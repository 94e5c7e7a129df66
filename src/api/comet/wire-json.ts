/**
 * The JSON value tree the consensus RPC renders, and its serializer. Results are built as plain
 * objects whose key order is the Go struct's field order; `undefined` members are omitted (Go's
 * `omitempty`), and `RawJson` inlines a JSON text verbatim (Go's `json.RawMessage`, e.g. genesis
 * `app_state`, which must keep its big numbers exactly).
 */

/** A JSON text embedded as is (compacted on output, as Go's encoder compacts a RawMessage). */
export class RawJson {
  /** The JSON text without insignificant whitespace. */
  readonly text: string

  constructor(text: string) {
    this.text = compactJson(text)
  }
}

/** A value the consensus RPC can render. */
export type Json = null | boolean | number | string | RawJson | Json[] | { [key: string]: Json | undefined }

/** A JSON object of the value tree. */
export type JsonObject = { [key: string]: Json | undefined }

/**
 * Serializes compactly as Go's `encoding/json` does, including its HTML-safe escaping of `<`, `>`
 * and `&` (and U+2028/U+2029) inside strings, so responses match CometBFT byte for byte.
 */
export function stringifyJson(value: Json): string {
  return escapeHtml(write(value))
}

function write(value: Json): string {
  if (value === null) return 'null'
  if (value instanceof RawJson) return value.text
  if (Array.isArray(value)) return '[' + value.map(write).join(',') + ']'
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value)
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`cannot render ${value} as JSON`)
      return JSON.stringify(value)
    default: {
      const parts: string[] = []
      for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(JSON.stringify(k) + ':' + write(v))
      return '{' + parts.join(',') + '}'
    }
  }
}

/** These characters only occur inside JSON strings, so a global replace is safe. */
function escapeHtml(text: string): string {
  return text.replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}

/** Removes whitespace outside strings (Go `json.Compact`). Throws on text that is not one JSON value. */
export function compactJson(text: string): string {
  JSON.parse(text) // validates
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (inString) {
      out += c
      if (c === '\\') out += text[++i]!
      else if (c === '"') inString = false
    } else if (c === '"') {
      inString = true
      out += c
    } else if (c !== ' ' && c !== '\n' && c !== '\r' && c !== '\t') {
      out += c
    }
  }
  return out
}
