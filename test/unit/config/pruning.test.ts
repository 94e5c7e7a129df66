import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { initHome } from '../../../src/config/init-home.js'
import { loadNodeConfig } from '../../../src/config/load.js'
import { pruningWindow } from '../../../src/config/pruning.js'

const made: string[] = []
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })))
})

let home: string
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'nodectl-pruning-'))
  made.push(home)
  await initHome({ home, moniker: 'node0' })
})

const load = (flags: Record<string, unknown> = {}, dev = false) => loadNodeConfig({ home, env: {}, flags, dev })

describe('pruning settings', () => {
  it('reads Cosmos SDK’s strategies: default, everything and custom keep a window; nothing is an archive', async () => {
    const text = await readFile(join(home, 'config', 'app.toml'), 'utf8')
    expect(text).toMatch(/^pruning = "default"$/m)
    expect(pruningWindow((await load()).pruning)).toEqual({ keepRecent: 362_880, interval: 10 })
    expect(pruningWindow((await load({ pruning: 'everything' })).pruning)).toEqual({ keepRecent: 2, interval: 10 })
    expect(pruningWindow((await load({ pruning: 'nothing' })).pruning)).toBeUndefined()
    const custom = await loadNodeConfig({
      home,
      env: { NODECTL_PRUNING: 'custom', NODECTL_PRUNING_KEEP_RECENT: '100', NODECTL_PRUNING_INTERVAL: '50' },
    })
    expect(pruningWindow(custom.pruning)).toEqual({ keepRecent: 100, interval: 50 })
  })

  it('refuses what Cosmos refuses, with its words', async () => {
    await expect(load({ pruning: 'custom', 'pruning-keep-recent': 5, 'pruning-interval': 0 })).rejects.toThrow(
      `--pruning-interval: 'pruning-interval' must not be 0. If you want to disable pruning, select pruning = "nothing"`,
    )
    await expect(load({ pruning: 'custom', 'pruning-keep-recent': 5, 'pruning-interval': 5 })).rejects.toThrow(
      `'pruning-interval' must not be less than 10. For the most aggressive pruning, select pruning = "everything"`,
    )
    await expect(load({ pruning: 'custom', 'pruning-keep-recent': 1, 'pruning-interval': 10 })).rejects.toThrow(
      `'pruning-keep-recent' must not be less than 2. For the most aggressive pruning, select pruning = "everything"`,
    )
    await expect(load({ pruning: 'sometimes' })).rejects.toThrow('unknown pruning strategy')
  })

  it('keeps a dev chain an archive node: the files’ value is not used, a flag asking for pruning is refused', async () => {
    const path = join(home, 'config', 'app.toml')
    await writeFile(path, (await readFile(path, 'utf8')).replace(/^pruning = "default"$/m, 'pruning = "everything"'))
    expect((await load({}, true)).pruning.strategy).toBe('nothing')
    await expect(load({ pruning: 'everything' }, true)).rejects.toThrow('--pruning: a dev chain keeps every height')
  })
})
