import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parse } from 'smol-toml'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import Init from '../../../src/commands/init.js'
import { loadNodeConfig } from '../../../src/config/load.js'

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

  it('--engine cometbft adds proxy_app (= app.toml [abci] laddr) and abci = "socket"; the default engine writes neither', async () => {
    const dir = await tempDir(join(tmpdir(), 'nodectl-cmd-init-'))
    const ours = await Init.run(['a', '--home', join(dir, 'ours')], ROOT)
    const comet = await Init.run(['a', '--home', join(dir, 'comet'), '--engine', 'cometbft'], ROOT)
    const readToml = async (path: string): Promise<Record<string, unknown>> => parse(await readFile(path, 'utf8'))
    const oursConfig = await readToml(ours.files.configToml)
    const { proxy_app, abci, ...rest } = await readToml(comet.files.configToml)
    const app = (await readToml(comet.files.appToml)) as { abci: { laddr: string } }
    expect(proxy_app).toBe('tcp://127.0.0.1:26658')
    expect(proxy_app).toBe(app.abci.laddr)
    expect(abci).toBe('socket')
    // Everything else is what the default engine writes: one node needs none of CometBFT's loopback p2p keys.
    expect(rest).toEqual(oursConfig)
    expect(oursConfig).not.toHaveProperty('proxy_app')
    expect(oursConfig).not.toHaveProperty('abci')

    const warnings: string[] = []
    const config = await loadNodeConfig({ home: comet.home, env: {}, onWarning: (m) => warnings.push(m) })
    expect(warnings).toEqual([])
    expect(config.abci.laddr).toEqual({ host: '127.0.0.1', port: 26658 })
  })

  it('refuses an unknown --engine', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-init-'))
    const err = (await Init.run(['a', '--home', home, '--engine', 'tendermint'], ROOT).catch((e: unknown) => e)) as Error
    expect(err.message).toMatch(/--engine.*nodectl, cometbft/s)
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
