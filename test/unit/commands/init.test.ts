import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import Init from '../../../src/commands/init.js'

/** Temporary directories made by this file, removed after it. */
const made: string[] = []
const tempDir = async (prefix: string): Promise<string> => {
  const dir = await mkdtemp(prefix)
  made.push(dir)
  return dir
}
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })))
})

const ROOT = resolve(import.meta.dirname, '../../..')

let out: string[]
let write: MockInstance

beforeEach(() => {
  out = []
  // oclif's this.log goes through console.log.
  write = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    out.push(args.map(String).join(' '))
  })
})
afterEach(() => write.mockRestore())

describe('nodectl init', () => {
  it('creates a home and reports it', async () => {
    const home = join(await tempDir(join(tmpdir(), 'nodectl-cmd-init-')), 'home')
    const result = await Init.run(['node0', '--home', home, '--chain-id', 'nodectl_4242-1'], ROOT)
    expect(result).toMatchObject({ home, moniker: 'node0', chainId: 'nodectl_4242-1', evmChainId: '4242' })
    expect(result.nodeId).toMatch(/^[0-9a-f]{40}$/)
    expect(result.validatorAddress).toMatch(/^[0-9A-F]{40}$/)
    for (const path of Object.values(result.files)) await expect(stat(path)).resolves.toBeDefined()
    expect(out.join('')).toContain(`Initialised ${home}`)
  })

  it('refuses an initialised home with one line and exit code 1, and --overwrite replaces it', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-init-'))
    const first = await Init.run(['a', '--home', home], ROOT)
    const err = (await Init.run(['b', '--home', home], ROOT).catch((e: unknown) => e)) as Error & { oclif?: { exit: number } }
    expect(err.message).toBe(
      `${home} is already initialised (config/genesis.json exists): pass --overwrite to replace its configuration, keys, genesis and chain data`,
    )
    expect(err.oclif?.exit).toBe(1)
    const second = await Init.run(['b', '--home', home, '--overwrite'], ROOT)
    expect(second.validatorAddress).not.toBe(first.validatorAddress)
  })

  it('names --chain-id when it is invalid', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-init-'))
    const err = (await Init.run(['a', '--home', home, '--chain-id', 'nodectl_9000'], ROOT).catch((e: unknown) => e)) as Error & {
      oclif?: { exit: number }
    }
    expect(err.message).toMatch(/^--chain-id: invalid chain id "nodectl_9000"/)
    expect(err.oclif?.exit).toBe(1)
  })

  it('uses NODECTL_HOME when --home is absent', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-init-'))
    vi.stubEnv('NODECTL_HOME', home)
    try {
      const result = await Init.run(['envnode'], ROOT)
      expect(result.home).toBe(home)
    } finally {
      vi.unstubAllEnvs()
    }
  })
})
