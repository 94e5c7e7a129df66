/**
 * Go `encoding/json` syntax error texts (`invalid character 'x' looking for beginning of value`,
 * `unexpected end of JSON input`, ...). CometBFT puts them in the `data` of parse and param errors,
 * and clients that show or match them see the same words from nodectl.
 */
import { GO_MAX_NESTING_DEPTH, exceedsDepth } from '../../rpc/json-scan.js'

/** The error text Go's decoder gives for `text`, or undefined when the text is one valid JSON value. */
export function goJsonSyntaxError(text: string): string | undefined {
  const s = new Scanner(text)
  try {
    s.skipSpace()
    s.value()
    s.skipSpace()
    if (s.pos < text.length) throw s.fail('after top-level value')
    return undefined
  } catch (err) {
    if (err instanceof GoSyntaxError) return err.message
    // The recursive scanner ran out of stack before Go's 10,000 levels: no syntax error came first.
    if (err instanceof RangeError && exceedsDepth(text)) return 'exceeded max depth'
    throw err
  }
}

/**
 * Parses `text` as JSON, throwing an Error with Go's message on bad syntax. The grammar is the same, so
 * Go's text is worked out only once JSON.parse has failed.
 */
export function parseJsonGo(text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new Error(goJsonSyntaxError(text) ?? (err as Error).message)
  }
  // JSON.parse has no nesting limit; Go's scanner stops past 10,000 levels.
  if (exceedsDepth(text)) throw new Error('exceeded max depth')
  return value
}

class GoSyntaxError extends Error {}

/** Go's `quoteChar`: the character in single quotes, escaped as a Go string literal would be. */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`
  if (c === '"') return `'"'`
  const q = JSON.stringify(c)
  return "'" + q.slice(1, -1) + "'"
}

class Scanner {
  pos = 0
  /** Open arrays/objects: past GO_MAX_NESTING_DEPTH Go fails (and this recursive scanner stays within the stack). */
  private depth = 0
  constructor(private readonly text: string) {}

  fail(context: string): GoSyntaxError {
    if (this.pos >= this.text.length) return new GoSyntaxError('unexpected end of JSON input')
    return new GoSyntaxError(`invalid character ${quoteChar(this.text[this.pos]!)} ${context}`)
  }

  skipSpace(): void {
    while (this.pos < this.text.length && ' \t\r\n'.includes(this.text[this.pos]!)) this.pos++
  }

  value(): void {
    const c = this.text[this.pos]
    if (c === '{') return this.object()
    if (c === '[') return this.array()
    if (c === '"') return this.string()
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number()
    for (const lit of ['true', 'false', 'null']) {
      if (c === lit[0]) {
        for (let i = 1; i < lit.length; i++) {
          this.pos++
          if (this.text[this.pos] !== lit[i]) throw this.fail(`in literal ${lit} (expecting ${quoteChar(lit[i]!)})`)
        }
        this.pos++
        return
      }
    }
    throw this.fail('looking for beginning of value')
  }

  private enter(): void {
    if (++this.depth > GO_MAX_NESTING_DEPTH) throw new GoSyntaxError('exceeded max depth')
  }

  private object(): void {
    this.enter()
    this.pos++
    this.skipSpace()
    if (this.text[this.pos] === '}') {
      this.pos++
      this.depth--
      return
    }
    for (;;) {
      if (this.text[this.pos] !== '"') throw this.fail('looking for beginning of object key string')
      this.string()
      this.skipSpace()
      if (this.text[this.pos] !== ':') throw this.fail('after object key')
      this.pos++
      this.skipSpace()
      this.value()
      this.skipSpace()
      const c = this.text[this.pos]
      if (c === '}') {
        this.pos++
        this.depth--
        return
      }
      if (c !== ',') throw this.fail('after object key:value pair')
      this.pos++
      this.skipSpace()
    }
  }

  private array(): void {
    this.enter()
    this.pos++
    this.skipSpace()
    if (this.text[this.pos] === ']') {
      this.pos++
      this.depth--
      return
    }
    for (;;) {
      this.value()
      this.skipSpace()
      const c = this.text[this.pos]
      if (c === ']') {
        this.pos++
        this.depth--
        return
      }
      if (c !== ',') throw this.fail('after array element')
      this.pos++
      this.skipSpace()
    }
  }

  private string(): void {
    this.pos++
    for (;;) {
      const c = this.text[this.pos]
      if (c === undefined) throw this.fail('')
      if (c === '"') {
        this.pos++
        return
      }
      if (c < ' ') throw this.fail('in string literal')
      if (c === '\\') {
        this.pos++
        const e = this.text[this.pos]
        if (e === 'u') {
          for (let i = 0; i < 4; i++) {
            this.pos++
            if (!/^[0-9a-fA-F]$/.test(this.text[this.pos] ?? '')) throw this.fail('in \\u hexadecimal character escape')
          }
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) {
          throw this.fail('in string escape code')
        }
      }
      this.pos++
    }
  }

  private number(): void {
    const digits = (): number => {
      const start = this.pos
      while (this.pos < this.text.length && this.text[this.pos]! >= '0' && this.text[this.pos]! <= '9') this.pos++
      return this.pos - start
    }
    if (this.text[this.pos] === '-') {
      this.pos++
      if (!/^[0-9]$/.test(this.text[this.pos] ?? '')) throw this.fail('in numeric literal')
    }
    if (this.text[this.pos] === '0') this.pos++
    else digits()
    if (this.text[this.pos] === '.') {
      this.pos++
      if (digits() === 0) throw this.fail('after decimal point in numeric literal')
    }
    if (this.text[this.pos] === 'e' || this.text[this.pos] === 'E') {
      this.pos++
      if (this.text[this.pos] === '+' || this.text[this.pos] === '-') this.pos++
      if (digits() === 0) throw this.fail('in exponent of numeric literal')
    }
  }
}
