import { Parser } from '@oclif/core'
import { describe, expect, it } from 'vitest'
import { parseStartArgv } from '../../../src/cli/start-argv.js'
import Start from '../../../src/commands/start.js'
import { normalizeBooleanArgs } from '../../../src/cli/start-argv.js'

/** What the oclif command gets for `argv`. */
async function oclifFlags(argv: string[]): Promise<Record<string, unknown>> {
  const { flags } = await Parser.parse(normalizeBooleanArgs(argv), { flags: Start.flags, strict: true })
  return flags
}

describe('parseStartArgv (the start bundle without oclif)', () => {
  it.each([
    [[]],
    [['--dev']],
    [['--home', '/tmp/n', '--dev']],
    [['--home=/tmp/n']],
    [['--json-rpc.api', 'eth,net', '--log_level=warn']],
    [['--no-json-rpc.enable', '--consensus.timeout_commit', '0s']],
    [['--json-rpc.enable=true', '--consensus.create_empty_blocks=false']],
    [['--dev', '--rpc.laddr', 'tcp://127.0.0.1:0', '--p2p.laddr=tcp://127.0.0.1:0', '--json-rpc.address', '127.0.0.1:0']],
  ])('reads %j as oclif does', async (argv) => {
    const lean = parseStartArgv(argv)
    expect(lean).toBeDefined()
    expect(lean).toEqual(await oclifFlags(argv))
  })

  it.each([
    [['--bogus']],
    [['--help']],
    [['-h']],
    [['extra']],
    [['--home']],
    [['--home', '--dev']],
    [['--home=']],
    [['--dev', '--dev']],
    [['--dev=yes']],
    [['--no-dev']],
    [['--unsafe-double-sign-at', '3']],
    [['--', '--dev']],
  ])('leaves %j to oclif', (argv) => {
    expect(parseStartArgv(argv)).toBeUndefined()
  })

  it('leaves to oclif what oclif refuses', async () => {
    for (const argv of [['--bogus'], ['extra'], ['--home'], ['--dev=yes'], ['--no-dev']]) {
      await expect(oclifFlags(argv), argv.join(' ')).rejects.toThrow()
    }
  })
})
