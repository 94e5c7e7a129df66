/** Duration flags take the config files' Go form (`500ms`, `5s`, `1m30s`); a bare number is milliseconds. */
import { describe, expect, it } from 'vitest'
import { parseDurationFlag } from '../../../src/cli/duration-flag.js'

describe('duration flags', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5000],
    ['1m30s', 90_000],
    ['250', 250],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDurationFlag(text, 'timeout')).toBe(ms)
  })

  it('names the flag when the value is not a duration or is too short', () => {
    expect(() => parseDurationFlag('soon', 'timeout')).toThrow('invalid --timeout "soon": want a duration such as 500ms, 5s or 1m30s')
    expect(() => parseDurationFlag('5ms', 'interval', 10)).toThrow('invalid --interval "5ms": want at least 10 ms')
  })
})
