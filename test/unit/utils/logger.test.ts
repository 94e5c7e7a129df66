/** The plain and JSON log lines: fields without a value left out, colours only when asked. */
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../../src/utils/logger.js'

function capture(opts: { format?: 'plain' | 'json'; color?: boolean } = {}) {
  const lines: string[] = []
  const log = createLogger({ level: 'debug', format: opts.format ?? 'plain', color: opts.color, write: (l) => lines.push(l) })
  return { log, lines }
}

describe('logger', () => {
  it('writes `time LEVEL msg key=value`, leaving out fields that are undefined or null', () => {
    const { log, lines } = capture()
    log.child({ module: 'p2p' }).info('peer connected', { peer: 'abc', height: 12n, reason: undefined, error: null, note: 'two words' })
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}peer connected module=p2p peer=abc height=12 note="two words"$/)
    expect(lines[0]).not.toMatch(/null|undefined/)
  })

  it('colours the level and dims the time and keys only when asked', () => {
    const { log, lines } = capture({ color: true })
    log.warn('slow', { ms: 5 })
    log.error('failed')
    expect(lines[0]!.replaceAll('\x1b', 'ESC')).toMatch(
      /^ESC\[2m\d\d:\d\d:\d\d\.\d{3}ESC\[0m ESC\[33mWARN ESC\[0m slow ESC\[2mms=ESC\[0m5$/,
    )
    expect(lines[1]).toContain('\x1b[31mERROR\x1b[0m failed')
    const plain = capture()
    plain.log.warn('slow', { ms: 5 })
    expect(plain.lines[0]).not.toContain('\x1b[')
  })

  it('writes one JSON object per line in json format, never coloured', () => {
    const { log, lines } = capture({ format: 'json', color: true })
    log.info('committed block', { height: 3n, hash: new Uint8Array([1, 2]), reason: undefined })
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: 'committed block', height: '3', hash: '0102' })
    expect(lines[0]).not.toContain('reason')
  })
})
