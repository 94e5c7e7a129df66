import { describe, expect, it } from 'vitest'
import { formatDuration, parseDuration, parseDurationNs } from '../../../src/config/duration.js'

describe('Go durations', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['5s', 5000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['.5s', 500],
    ['2h', 7_200_000],
    ['1h2m3s4ms', 3_723_004],
    ['500us', 0.5],
    ['500µs', 0.5],
    ['1000000ns', 1],
    ['+3s', 3000],
    ['-1s', -1000],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  it('keeps nanosecond precision', () => {
    expect(parseDurationNs('1.000000001s')).toBe(1_000_000_001n)
  })

  it.each([
    ['', /invalid duration/],
    ['5', /missing unit in duration "5"/],
    ['5x', /unknown unit "x" in duration "5x"/],
    ['s', /invalid duration/],
    ['1.5.s', /missing unit/],
    ['.s', /invalid duration/],
    ['1sconstructor', /unknown unit "sconstructor"/],
    ['3000000h', /too large/],
  ])('rejects %j', (text, message) => {
    expect(() => parseDuration(text)).toThrow(message)
  })

  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [90_000, '1m30s'],
    [120_000, '2m0s'],
    [3_600_000, '1h0m0s'],
    [0.5, '500µs'],
    [0.000001, '1ns'],
  ])('formats %d ms as Go does (%s)', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
    expect(parseDuration(text)).toBe(ms)
  })
})
