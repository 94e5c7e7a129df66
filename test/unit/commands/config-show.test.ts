/**
 * `nodectl config show`: the settings `start` would use, each with its source — a default, a file, a
 * NODECTL_* variable or a flag (flags > environment > files > defaults) — as JSON, and as
 * `setting = value  # source` lines into a pipe.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import ConfigShow, { type ShownSetting } from '../../../src/commands/config/show.js'
import { initHome } from '../../../src/config/init-home.js'
import { jsonOf, runCli } from '../../helpers/cli.js'

describe('nodectl config show', () => {
  let dir: string
  let home: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-config-show-'))
    home = (await initHome({ home: join(dir, 'home'), moniker: 'shown' })).home
    const appToml = join(home, 'config', 'app.toml')
    await writeFile(appToml, (await readFile(appToml, 'utf8')).replace(/^logs-cap = 10000$/m, 'logs-cap = 5'))
    process.env.NODECTL_LOG_LEVEL = 'debug'
  })
  afterEach(async () => {
    delete process.env.NODECTL_LOG_LEVEL
    await rm(dir, { recursive: true, force: true })
  })

  it('lists every setting with its value and where it came from', async () => {
    const run = await runCli(ConfigShow, ['--home', home, '--json-rpc.address', '127.0.0.1:9999', '--json'])
    const shown = new Map(jsonOf<ShownSetting[]>(run).map((s) => [s.setting, s]))
    expect(shown.get('json-rpc.address')).toMatchObject({ value: '"127.0.0.1:9999"', source: '--json-rpc.address', file: 'app.toml' })
    expect(shown.get('log_level')).toMatchObject({ value: '"debug"', source: 'NODECTL_LOG_LEVEL' })
    expect(shown.get('json-rpc.logs-cap')).toMatchObject({ value: '5', source: 'app.toml' })
    expect(shown.get('moniker')).toMatchObject({ value: '"shown"', source: 'config.toml' })
    expect(shown.get('abci.laddr')).toMatchObject({ value: '"tcp://127.0.0.1:26658"' })
  })

  it('prints setting = value  # source lines into a pipe', async () => {
    const run = await runCli(ConfigShow, ['--home', home, '--consensus.timeout_commit', '250ms'])
    expect(run.stdout).toContain('consensus.timeout_commit = "250ms"  # --consensus.timeout_commit')
    expect(run.stdout).toContain('log_level = "debug"  # NODECTL_LOG_LEVEL')
  })

  it('names the bad value and its source, exit 1', async () => {
    const run = await runCli(ConfigShow, ['--home', home, '--json-rpc.address', 'nowhere'])
    expect(run.error?.message).toMatch(/--json-rpc.address: cannot parse "nowhere"/)
    expect(run.error?.oclif?.exit).toBe(1)
  })
})
