import { access, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import type { NodeConfig } from '../../../src/config/node-config.js'
import type { NodeAddresses } from '../../../src/node/node.js'
import { TypedEmitter } from '../../../src/utils/events.js'

const fake = vi.hoisted(() => ({
  create: vi.fn(),
  start: vi.fn(),
  stop: vi.fn(),
  configs: [] as unknown[],
}))

vi.mock('../../../src/node/node.js', () => ({
  Node: {
    create: fake.create,
  },
}))

const { default: Start } = await import('../../../src/commands/start.js')
const { describeBlockProduction } = await import('../../../src/cli/start-node.js')
const { formatEther } = await import('../../../src/primitives/ether.js')
const { normalizeBooleanArgs } = await import('../../../src/cli/start-argv.js')
const { initHome } = await import('../../../src/config/init-home.js')

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
const ADDRESSES: NodeAddresses = {
  jsonRpcHttp: 'http://127.0.0.1:8545',
  jsonRpcWs: 'ws://127.0.0.1:8546',
  cometRpc: 'tcp://127.0.0.1:26657',
}

let out: string[]
let spies: MockInstance[]

beforeEach(() => {
  out = []
  fake.configs.length = 0
  fake.create.mockReset().mockImplementation(async (config: NodeConfig) => {
    fake.configs.push(config)
    return { start: fake.start, stop: fake.stop, events: new TypedEmitter() }
  })
  fake.start.mockReset().mockResolvedValue(ADDRESSES)
  fake.stop.mockReset().mockResolvedValue(undefined)
  // oclif's this.log / logToStderr / warn go through console.
  const capture = (...args: unknown[]): void => {
    out.push(args.map(String).join(' ') + '\n')
  }
  spies = [vi.spyOn(console, 'log').mockImplementation(capture), vi.spyOn(console, 'error').mockImplementation(capture)]
})
afterEach(() => {
  for (const s of spies) s.mockRestore()
})

type OclifError = Error & { oclif?: { exit: number } }

/** Runs `start` until it listens, sends `signals`, and returns how it ended. */
async function runUntilSignal(argv: string[], signals: NodeJS.Signals[] = ['SIGINT']): Promise<OclifError> {
  const running = Start.run(argv, ROOT).then(
    () => new Error('returned without exiting') as OclifError,
    (e: unknown) => e as OclifError,
  )
  await vi.waitFor(() => expect(out.join('')).toContain('Press Ctrl-C to stop.'), { timeout: 10_000 })
  for (const s of signals) process.emit(s, s)
  return running
}

describe('nodectl start', () => {
  it('--dev: initialises a temporary home, prints the banner, stops once on SIGINT and exits 0', async () => {
    const end = await runUntilSignal(['--dev'], ['SIGINT', 'SIGINT'])
    expect(end.oclif?.exit).toBe(0)
    expect(fake.stop).toHaveBeenCalledTimes(1)
    const config = fake.configs[0] as NodeConfig
    expect(config.dev).toBe(true)
    expect(config.chainId).toBe('nodectl_31337-1')
    expect(config.jsonRpc.enable).toBe(true)
    expect(config.jsonRpc.api).toHaveLength(10)
    const text = out.join('')
    expect(text).toContain('(0) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000 ETH)')
    expect(text).toContain('(0) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    expect(text).toContain('EVM chain ID:       31337')
    expect(text).toContain(`Key store:          ${config.paths.keystoreDir} (passphrase "")`)
    expect(text).toContain('Unlocked:           all 10 accounts, until the node stops')
    expect(text).toContain('http://127.0.0.1:8545 (web3, net, eth, personal, debug, miner, txpool, evm, anvil, hardhat)')
    expect(text).toContain('as soon as transactions wait; an empty block after 5s without any')
    expect(text).toContain('http://127.0.0.1:26657 (WebSocket ws://127.0.0.1:26657/websocket)')
    expect(text).toContain(
      'Browser pages:      HTTP no other origin (name one with --json-rpc.http-corsdomain); WebSocket 127.0.0.1, localhost',
    )
    await expect(access(config.home)).rejects.toThrow()
  })

  it('--dev --home initialises the given home once and keeps it', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-start-'))
    expect((await runUntilSignal(['--dev', '--home', home], ['SIGTERM'])).oclif?.exit).toBe(0)
    out.length = 0
    expect(
      (await runUntilSignal(['--dev', '--home', home, '--json-rpc.enable=false', '--consensus.timeout_commit', '2s'])).oclif?.exit,
    ).toBe(0)
    const [first, second] = fake.configs as NodeConfig[]
    expect(second!.home).toBe(home)
    expect(second!.genesis.validators[0]!.address).toEqual(first!.genesis.validators[0]!.address)
    expect(second!.jsonRpc.enable).toBe(false)
    expect(second!.consensus.timeoutCommit).toBe(2000)
    await expect(access(home)).resolves.toBeUndefined()
  })

  it('--dev refuses a home made by nodectl init with exit 1, before writing anything to its key store', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-start-'))
    await initHome({ home, moniker: 'node0', chainId: 'nodectl_9000-1' })
    const err = (await Start.run(['--dev', '--home', home], ROOT).catch((e: unknown) => e)) as OclifError
    expect(err.oclif?.exit).toBe(1)
    expect(err.message).toBe(
      `--dev: ${home} holds chain nodectl_9000-1, which does not fund the 10 dev accounts (a home made by "nodectl init"); --dev ` +
        `would write their publicly known keys into its key store. Start it without --dev (nodectl start --home ${home}), or run ` +
        '--dev without --home (a temporary home) or with a new directory',
    )
    expect(fake.create).not.toHaveBeenCalled()
    expect(await readdir(join(home, 'keystore'))).toEqual([])
    expect(out.join('')).not.toContain('Available Accounts')
  })

  it('--dev with the EVM JSON-RPC off does not promise unlocked accounts', async () => {
    fake.start.mockResolvedValue({ cometRpc: ADDRESSES.cometRpc })
    await runUntilSignal(['--dev', '--json-rpc.enable=false'])
    const text = out.join('')
    expect(text).toContain('Unlocked:           none can be used: the EVM JSON-RPC is off (turn it on with --json-rpc.enable)')
    expect(text).not.toContain('eth_accounts lists them')
  })

  it('passes flags over an initialised home', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-start-'))
    await initHome({ home, moniker: 'node0' })
    await runUntilSignal([
      '--home',
      home,
      '--json-rpc.enable',
      '--json-rpc.api',
      'eth,web3,net,txpool,debug',
      '--minimum-gas-prices',
      '1gwei',
      '--log_level',
      'error',
    ])
    const config = fake.configs[0] as NodeConfig
    expect(config.dev).toBe(false)
    expect(config.jsonRpc.enable).toBe(true)
    expect(config.jsonRpc.api).toEqual(['eth', 'web3', 'net', 'txpool', 'debug'])
    expect(config.minGasPrice).toBe(1_000_000_000n)
    expect(config.minGasPriceFromFlag).toBe(true)
    expect(config.logLevel).toBe('error')
    expect(out.join('')).not.toContain('Private Keys')
  })

  it('reports a bad flag in one line with exit code 1, without creating the node', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-start-'))
    await initHome({ home, moniker: 'node0' })
    const err = (await Start.run(['--home', home, '--json-rpc.api', 'foo'], ROOT).catch((e: unknown) => e)) as OclifError
    expect(err.message).toBe(
      '--json-rpc.api: unknown namespace "foo" (known: web3, net, eth, personal, debug, miner, txpool, evm, anvil, hardhat)',
    )
    expect(err.oclif?.exit).toBe(1)
    expect(fake.create).not.toHaveBeenCalled()
  })

  it('reports an uninitialised home', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-start-'))
    const err = (await Start.run(['--home', home], ROOT).catch((e: unknown) => e)) as OclifError
    expect(err.message).toMatch(/^genesis.json: not found at .*: run "nodectl init <moniker>" first$/)
    expect(err.oclif?.exit).toBe(1)
  })

  it('names the flag of a port already in use', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-start-'))
    fake.start.mockRejectedValue(
      Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8545'), {
        code: 'EADDRINUSE',
        address: '127.0.0.1',
        port: 8545,
      }),
    )
    const err = (await Start.run(['--dev', '--home', home], ROOT).catch((e: unknown) => e)) as OclifError
    expect(err.message).toBe(
      '--json-rpc.address: 127.0.0.1:8545 is already in use (is another node running?); choose another address with ' +
        '--json-rpc.address or stop the other process',
    )
    expect(err.oclif?.exit).toBe(1)
    expect(fake.stop).toHaveBeenCalledTimes(1)
  })

  it('reports a failing stop in one line', async () => {
    fake.stop.mockRejectedValue(new Error('disk full'))
    const end = await runUntilSignal(['--dev'])
    expect(end.message).toBe('error while stopping the node: disk full')
    expect(end.oclif?.exit).toBe(1)
  })

  it('reports other start failures in one line', async () => {
    const home = await tempDir(join(tmpdir(), 'nodectl-cmd-start-'))
    fake.start.mockRejectedValue(new Error('database is locked'))
    const err = (await Start.run(['--dev', '--home', home], ROOT).catch((e: unknown) => e)) as OclifError
    expect(err.message).toBe('cannot start the node: database is locked')
    expect(err.oclif?.exit).toBe(1)
  })
})

describe('start helpers', () => {
  it('accepts cobra-style --flag=true|false for boolean settings', () => {
    expect(
      normalizeBooleanArgs([
        '--json-rpc.enable=true',
        '--json-rpc.enable=false',
        '--json-rpc.api=eth',
        '--consensus.skip_timeout_commit=FALSE',
      ]),
    ).toEqual(['--json-rpc.enable', '--no-json-rpc.enable', '--json-rpc.api=eth', '--no-consensus.skip_timeout_commit'])
  })

  it('formats ether', () => {
    expect(formatEther(10n ** 22n)).toBe('10000')
    expect(formatEther(15n * 10n ** 17n)).toBe('1.5')
    expect(formatEther(1n)).toBe('0.000000000000000001')
    expect(formatEther(0n)).toBe('0')
  })

  it('describes block production as CometBFT schedules it', () => {
    const base = {
      timeoutPropose: 3000,
      timeoutProposeDelta: 500,
      timeoutPrevote: 1000,
      timeoutPrevoteDelta: 500,
      timeoutPrecommit: 1000,
      timeoutPrecommitDelta: 500,
      timeoutCommit: 1000,
      skipTimeoutCommit: false,
      createEmptyBlocks: true,
      createEmptyBlocksInterval: 0,
      doubleSignCheckHeight: 0,
    }
    expect(describeBlockProduction(base)).toBe('a block every height, 1s after the previous commit')
    expect(describeBlockProduction({ ...base, createEmptyBlocks: false })).toBe('only when transactions wait')
    expect(describeBlockProduction({ ...base, createEmptyBlocksInterval: 5000 })).toBe(
      'as soon as transactions wait; an empty block after 5s without any',
    )
  })
})
