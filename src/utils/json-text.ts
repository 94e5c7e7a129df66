/** Comparisons of JSON text without parsing it (for texts of hundreds of MB). */

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Whether a byte is JSON whitespace. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

/**
 * True when two JSON texts are the same but for whitespace between tokens: one file's value read as
 * it is and the same value compacted (as CometBFT passes a genesis's app_state on) compare equal.
 */
export function equalJsonText(a: Uint8Array, b: Uint8Array): boolean {
  let i = 0
  let j = 0
  let inString = false
  for (;;) {
    if (!inString) {
      while (i < a.length && isSpace(a[i]!)) i++
      while (j < b.length && isSpace(b[j]!)) j++
    }
    if (i === a.length || j === b.length) return i === a.length && j === b.length
    const c = a[i]!
    if (c !== b[j]) return false
    i++
    j++
    if (inString && c === BACKSLASH) {
      if (i === a.length || j === b.length || a[i] !== b[j]) return false
      i++
      j++
    } else if (c === QUOTE) inString = !inString
  }
}
