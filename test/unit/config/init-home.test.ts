import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'smol-toml'
import { afterAll, describe, expect, it } from 'vitest'
import { testNodeSettings } from '../../../src/node/test-settings.js'
import { homePaths, resolveHome } from '../../../src/config/home.js'
import { HomeExistsError, initDevHome, initHome, isHomeInitialised } from '../../../src/config/init-home.js'
import { loadNodeConfig } from '../../../src/config/load.js'
import { devAccounts } from '../../../src/keystore/dev-accounts.js'
import { loadNodeKey, loadValidatorKey, nodeIdOf } from '../../../src/keystore/validator-key.js'
import { bytesToUpperHex } from '../../../src/primitives/hex.js'

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

const newHome = (): Promise<string> => tempDir(join(tmpdir(), 'nodectl-init-'))
const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777

describe('home layout', () => {
  it('resolves --home, then NODECTL_HOME, then ~/.nodectl', () => {
    expect(resolveHome('/a/b', { NODECTL_HOME: '/c' })).toBe('/a/b')
    expect(resolveHome(undefined, { NODECTL_HOME: '/c' })).toBe('/c')
    expect(resolveHome(undefined, {})).toMatch(/\.nodectl$/)
    expect(resolveHome('~/x', {})).not.toContain('~')
  })

  it('lists every file', () => {
    expect(homePaths('/h')).toEqual({
      home: '/h',
      configDir: '/h/config',
      dataDir: '/h/data',
      keystoreDir: '/h/keystore',
      configToml: '/h/config/config.toml',
      appToml: '/h/config/app.toml',
      genesis: '/h/config/genesis.json',
      nodeKey: '/h/config/node_key.json',
      privValidatorKey: '/h/config/priv_validator_key.json',
      privValidatorState: '/h/data/priv_validator_state.json',
      db: '/h/data/nodectl.db',
      wal: '/h/data/cs.wal/wal',
      jwtSecret: '/h/config/jwt.hex',
    })
  })
})

describe('initHome', () => {
  it('writes every file with the right modes', async () => {
    const home = await newHome()
    const result = await initHome({ home, moniker: 'node0' })
    const p = homePaths(home)
    expect(await modeOf(p.keystoreDir)).toBe(0o700)
    expect(await modeOf(p.configDir)).toBe(0o700)
    expect(await modeOf(p.dataDir)).toBe(0o700)
    for (const secret of [p.privValidatorKey, p.nodeKey, p.privValidatorState, p.jwtSecret])
      expect(await modeOf(secret), secret).toBe(0o600)
    for (const pub of [p.configToml, p.appToml, p.genesis]) expect(await modeOf(pub), pub).toBe(0o644)

    expect(JSON.parse(await readFile(p.privValidatorState, 'utf8'))).toEqual({ height: '0', round: 0, step: 0 })
    expect(await readFile(p.jwtSecret, 'utf8')).toMatch(/^0x[0-9a-f]{64}$/)
    expect((parse(await readFile(p.configToml, 'utf8')) as { moniker: string }).moniker).toBe('node0')

    const validator = await loadValidatorKey(p.privValidatorKey)
    const node = await loadNodeKey(p.nodeKey)
    expect(result.validatorAddress).toBe(bytesToUpperHex(validator.address))
    expect(result.nodeId).toBe(nodeIdOf(node))
    const genesis = JSON.parse(await readFile(p.genesis, 'utf8'))
    expect(genesis.chain_id).toBe('nodectl_9000-1')
    expect(genesis.validators).toEqual([
      {
        address: bytesToUpperHex(validator.address),
        pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.from(validator.publicKey).toString('base64') },
        power: '10',
        name: 'node0',
      },
    ])
    expect(genesis.app_state.evm.accounts).toEqual([])
    expect(await isHomeInitialised(home)).toBe(true)

    const config = await loadNodeConfig({ home, env: {} })
    expect(config.chainId).toBe('nodectl_9000-1')
  })

  it('takes a chain id and genesis accounts', async () => {
    const home = await newHome()
    const result = await initHome({
      home,
      moniker: 'n',
      chainId: 'mychain_777-2',
      accounts: [{ address: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', balance: 5n }],
    })
    expect(result.evmChainId).toBe(777n)
    const genesis = JSON.parse(await readFile(homePaths(home).genesis, 'utf8'))
    expect(genesis.app_state.evm.accounts).toEqual([{ address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', balance: '5', nonce: '0' }])
  })

  it('refuses a bad chain id before writing anything', async () => {
    const home = await newHome()
    await expect(initHome({ home, moniker: 'n', chainId: 'nodectl' })).rejects.toThrow(/^--chain-id: invalid chain id "nodectl"/)
    expect(await isHomeInitialised(home)).toBe(false)
  })

  it('refuses an initialised home, and --overwrite replaces it', async () => {
    const home = await newHome()
    const first = await initHome({ home, moniker: 'a' })
    const err = await initHome({ home, moniker: 'b' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(HomeExistsError)
    expect((err as Error).message).toBe(
      `${home} is already initialised (config/genesis.json exists): pass --overwrite to replace its configuration, keys, genesis and chain data`,
    )

    const p = homePaths(home)
    await mkdir(p.db, { recursive: true })
    await writeFile(join(p.db, 'CURRENT'), 'x')
    await writeFile(join(p.keystoreDir, 'UTC--key'), '{}')
    await writeFile(p.privValidatorKey, await readFile(p.privValidatorKey, 'utf8'), { mode: 0o644 })
    const second = await initHome({ home, moniker: 'b', overwrite: true })
    expect(second.validatorAddress).not.toBe(first.validatorAddress)
    expect(await modeOf(p.privValidatorKey)).toBe(0o600)
    await expect(stat(p.db)).rejects.toThrow()
    expect(await readFile(join(p.keystoreDir, 'UTC--key'), 'utf8')).toBe('{}')
    expect((await loadNodeConfig({ home, env: {} })).moniker).toBe('b')
  })

  it('initialises a home directory that exists but is empty', async () => {
    const home = await newHome()
    await expect(initHome({ home, moniker: 'x' })).resolves.toBeDefined()
  })
})

describe('initDevHome', () => {
  it('writes the dev chain: chain id, 10 funded accounts, admin, dev settings', async () => {
    const home = await newHome()
    const result = await initDevHome(home)
    expect(result.chainId).toBe('nodectl_31337-1')
    expect(result.evmChainId).toBe(31337n)
    const genesis = JSON.parse(await readFile(homePaths(home).genesis, 'utf8'))
    const accounts = devAccounts()
    expect(genesis.app_state.evm.accounts).toEqual(
      accounts.map((a) => ({ address: a.address, balance: '10000000000000000000000', nonce: '0' })),
    )
    expect(genesis.app_state.evm.validator_admin).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')

    const app = parse(await readFile(homePaths(home).appToml, 'utf8')) as Record<string, Record<string, unknown>>
    expect(app['json-rpc']).toMatchObject({
      enable: true,
      address: '127.0.0.1:8545',
      'ws-address': '127.0.0.1:8546',
      api: 'web3,net,eth,personal,debug,miner,txpool,evm,anvil,hardhat',
    })
    const config = await loadNodeConfig({ home, env: {}, dev: true })
    expect(config.jsonRpc.enable).toBe(true)
    expect(config.jsonRpc.api).toEqual(['web3', 'net', 'eth', 'personal', 'debug', 'miner', 'txpool', 'evm', 'anvil', 'hardhat'])
    expect(config.rpc.laddr).toEqual({ host: '127.0.0.1', port: 26657 })
    expect(config.consensus).toMatchObject({
      createEmptyBlocks: true,
      createEmptyBlocksInterval: 5000,
      timeoutCommit: 0,
      skipTimeoutCommit: true,
      timeoutPropose: 3000,
    })
    expect(config.minGasPrice).toBe(0n)
    expect(config.p2p.laddr).toEqual({ host: '127.0.0.1', port: 26656 })
  })

  it('writes the test preset: port 0 everywhere, test timeouts', async () => {
    const home = await newHome()
    await initDevHome(home, { settings: testNodeSettings() })
    const config = await loadNodeConfig({ home, env: {}, dev: true })
    expect([config.rpc.laddr?.port, config.p2p.laddr.port, config.jsonRpc.address.port, config.jsonRpc.wsAddress.port]).toEqual([
      0, 0, 0, 0,
    ])
    expect(config.consensus).toEqual(testNodeSettings().consensus)
    expect(config.logLevel).toBe('none')
  })
})
