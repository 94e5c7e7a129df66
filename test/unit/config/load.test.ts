import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { visitGenesisAccounts } from '../../../src/config/genesis-accounts.js'
import { initDevHome, initHome } from '../../../src/config/init-home.js'
import { loadNodeConfig } from '../../../src/config/load.js'
import { saveMinimumGasPrices } from '../../../src/config/save-min-gas-price.js'
import { ConfigError } from '../../../src/utils/errors.js'

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

let home: string

beforeEach(async () => {
  home = await tempDir(join(tmpdir(), 'nodectl-load-'))
  await initHome({ home, moniker: 'node0' })
})

async function edit(file: 'config.toml' | 'app.toml', from: RegExp, to: string): Promise<void> {
  const path = join(home, 'config', file)
  const text = await readFile(path, 'utf8')
  expect(text).toMatch(from)
  await writeFile(path, text.replace(from, to))
}

async function loadError(opts: { flags?: Record<string, unknown>; env?: NodeJS.ProcessEnv; dev?: boolean } = {}): Promise<string> {
  try {
    await loadNodeConfig({ home, env: {}, ...opts })
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error('loaded without error')
}

describe('loadNodeConfig', () => {
  it('loads an initialised home with the defaults', async () => {
    const config = await loadNodeConfig({ home, env: {} })
    expect(config.moniker).toBe('node0')
    expect(config.chainId).toBe('nodectl_9000-1')
    expect(config.evmChainId).toBe(9000n)
    expect(config.dev).toBe(false)
    expect(config.jsonRpc).toMatchObject({
      enable: false,
      address: { host: '127.0.0.1', port: 8545 },
      wsAddress: { host: '0.0.0.0', port: 8546 },
      api: ['eth', 'net', 'web3'],
      gasCap: 25_000_000n,
      evmTimeout: 5000,
      httpIdleTimeout: 120_000,
    })
    expect(config.rpc.laddr).toEqual({ host: '127.0.0.1', port: 26657 })
    expect(config.consensus.timeoutPropose).toBe(3000)
    expect(config.minGasPrice).toBe(0n)
    expect(config.minGasPriceFromFlag).toBe(false)
    expect(config.paths.db).toBe(join(home, 'data', 'nodectl.db'))
    expect(config.paths.wal).toBe(join(home, 'data', 'cs.wal', 'wal'))
    expect(config.genesis.validators).toHaveLength(1)
  })

  it('[abci] laddr: app.toml, NODECTL_ABCI_LADDR, --abci.laddr; tcp:// or unix://', async () => {
    expect((await loadNodeConfig({ home, env: {} })).abci.laddr).toEqual({ host: '127.0.0.1', port: 26658 })
    await edit('app.toml', /^laddr = "tcp:\/\/127.0.0.1:26658"$/m, 'laddr = "tcp://127.0.0.1:1111"')
    expect((await loadNodeConfig({ home, env: {} })).abci.laddr).toEqual({ host: '127.0.0.1', port: 1111 })
    const env = { NODECTL_ABCI_LADDR: 'unix:///run/nodectl/abci.sock' }
    expect((await loadNodeConfig({ home, env })).abci.laddr).toEqual({ path: '/run/nodectl/abci.sock' })
    const flags = { 'abci.laddr': 'tcp://0.0.0.0:2222' }
    expect((await loadNodeConfig({ home, env, flags })).abci.laddr).toEqual({ host: '0.0.0.0', port: 2222 })
    await expect(loadNodeConfig({ home, env: {}, flags: { 'abci.laddr': 'unix://relative.sock' } })).rejects.toThrow(
      /abci.laddr.*want unix:\/\/\/absolute\/path/,
    )
  })

  it('[state-sync] snapshot-interval and snapshot-keep-recent: app.toml, environment, flags', async () => {
    expect((await loadNodeConfig({ home, env: {} })).snapshots).toEqual({ interval: 0, keepRecent: 2 })
    await edit('app.toml', /^snapshot-interval = 0$/m, 'snapshot-interval = 1000')
    expect((await loadNodeConfig({ home, env: {} })).snapshots).toEqual({ interval: 1000, keepRecent: 2 })
    const env = { NODECTL_STATE_SYNC_SNAPSHOT_KEEP_RECENT: '5' }
    expect((await loadNodeConfig({ home, env })).snapshots).toEqual({ interval: 1000, keepRecent: 5 })
    const flags = { 'state-sync.snapshot-interval': '10' }
    expect((await loadNodeConfig({ home, env, flags })).snapshots).toEqual({ interval: 10, keepRecent: 5 })
  })

  it('layers defaults < file < environment < flags', async () => {
    await edit('app.toml', /^address = "127.0.0.1:8545"$/m, 'address = "127.0.0.1:1111"')
    await edit('app.toml', /^logs-cap = 10000$/m, 'logs-cap = 5')
    await edit('config.toml', /^timeout_commit = "1s"$/m, 'timeout_commit = "250ms"')
    const file = await loadNodeConfig({ home, env: {} })
    expect(file.jsonRpc.address.port).toBe(1111)
    expect(file.jsonRpc.logsCap).toBe(5)
    expect(file.consensus.timeoutCommit).toBe(250)

    const env = {
      NODECTL_JSON_RPC_ADDRESS: '127.0.0.1:2222',
      NODECTL_JSON_RPC_LOGS_CAP: '6',
      NODECTL_MINIMUM_GAS_PRICES: '1gwei',
      NODECTL_LOG_LEVEL: 'debug',
      NODECTL_RPC_LADDR: 'tcp://127.0.0.1:3333',
      NODECTL_CONSENSUS_SKIP_TIMEOUT_COMMIT: 'true',
    }
    const fromEnv = await loadNodeConfig({ home, env })
    expect(fromEnv.jsonRpc.address.port).toBe(2222)
    expect(fromEnv.jsonRpc.logsCap).toBe(6)
    expect(fromEnv.minGasPrice).toBe(1_000_000_000n)
    expect(fromEnv.minGasPriceFromFlag).toBe(true)
    expect(fromEnv.logLevel).toBe('debug')
    expect(fromEnv.rpc.laddr?.port).toBe(3333)
    expect(fromEnv.consensus.skipTimeoutCommit).toBe(true)
    expect(fromEnv.consensus.timeoutCommit).toBe(250)

    const flags = {
      'json-rpc.address': '127.0.0.1:4444',
      'minimum-gas-prices': '7',
      'consensus.skip_timeout_commit': false,
      'consensus.timeout_commit': '2s',
      'json-rpc.api': 'eth,debug',
      home: '/ignored',
      dev: undefined,
    }
    const fromFlags = await loadNodeConfig({ home, env, flags })
    expect(fromFlags.jsonRpc.address.port).toBe(4444)
    expect(fromFlags.jsonRpc.logsCap).toBe(6)
    expect(fromFlags.minGasPrice).toBe(7n)
    expect(fromFlags.minGasPriceFromFlag).toBe(true)
    expect(fromFlags.consensus.skipTimeoutCommit).toBe(false)
    expect(fromFlags.consensus.timeoutCommit).toBe(2000)
    expect(fromFlags.jsonRpc.api).toEqual(['eth', 'debug'])
  })

  it('uses the dev preset under the files', async () => {
    const dev = await loadNodeConfig({ home, env: {}, dev: true })
    expect(dev.dev).toBe(true)
    // This home's files were written with the defaults, and files win over the preset.
    expect(dev.jsonRpc.enable).toBe(false)
  })

  it('loads a home it was told was just written as it loads the files (they are not read back)', async () => {
    for (const init of [() => initDevHome(home, { overwrite: true }), () => initHome({ home, moniker: 'node1', overwrite: true })]) {
      const written = await init()
      const opts = { home, env: { NODECTL_LOG_LEVEL: 'debug' }, flags: { 'json-rpc.gas-cap': 77 }, dev: true }
      const fromFiles = await loadNodeConfig(opts)
      const fromWritten = await loadNodeConfig({ ...opts, written })
      expect(fromWritten).toEqual({ ...fromFiles, genesis: written.genesis })
      // Read from the file, the genesis leaves its accounts there: the rest is the same, and so are they.
      const { appState: fileState, source: _, ...fileDoc } = fromFiles.genesis
      const { appState: writtenState, ...writtenDoc } = written.genesis
      expect(fileDoc).toEqual(writtenDoc)
      const { accounts, ...writtenEvm } = writtenState.evm as Record<string, unknown>
      expect(fileState).toEqual({ ...writtenState, evm: writtenEvm })
      const read: unknown[] = []
      await visitGenesisAccounts(fromFiles.genesis, { account: (_i, a) => void read.push(a) })
      expect(read).toEqual(accounts)
      expect([fromWritten.logLevel, fromWritten.jsonRpc.gasCap]).toEqual(['debug', 77n])
      // Not read: a file changed since is not seen.
      await edit('app.toml', /^gas-cap = .*$/m, 'gas-cap = 5')
      expect((await loadNodeConfig({ ...opts, flags: {}, written })).jsonRpc.gasCap).toBe(written.settings.jsonRpc.gasCap)
    }
  })

  it('keeps defaults when the TOML files are missing', async () => {
    const bare = await tempDir(join(tmpdir(), 'nodectl-load-bare-'))
    await initHome({ home: bare, moniker: 'x' })
    await rm(join(bare, 'config', 'app.toml'))
    await rm(join(bare, 'config', 'config.toml'))
    const dev = await loadNodeConfig({ home: bare, env: {}, dev: true })
    expect(dev.jsonRpc.enable).toBe(true)
    expect(dev.jsonRpc.api).toHaveLength(10)
    expect(dev.consensus).toMatchObject({
      timeoutCommit: 0,
      skipTimeoutCommit: true,
      createEmptyBlocks: true,
      createEmptyBlocksInterval: 5000,
    })
  })

  it('honours relocated files', async () => {
    await edit('config.toml', /^db_dir = "data"$/m, 'db_dir = "chain"')
    const config = await loadNodeConfig({ home, env: {} })
    expect(config.paths.db).toBe(join(home, 'chain', 'nodectl.db'))
    await edit('config.toml', /^genesis_file = .*$/m, 'genesis_file = "elsewhere.json"')
    expect(await loadError()).toMatch(/^genesis.json: not found at .*elsewhere.json/)
  })

  it('reports unknown keys as warnings', async () => {
    await edit('config.toml', /^\[p2p\]$/m, '[p2p]\nseeds = ""')
    await edit('config.toml', /^moniker = /m, 'fast_sync = true\nproxy_app = "tcp://127.0.0.1:26658"\nmoniker = ')
    const path = join(home, 'config', 'config.toml')
    await writeFile(path, (await readFile(path, 'utf8')) + '\n[fastsync]\nversion = "v0"\n')
    const warnings: string[] = []
    const config = await loadNodeConfig({ home, env: {}, onWarning: (m) => warnings.push(m) })
    expect(config.moniker).toBe('node0')
    // proxy_app is one of CometBFT's own keys (cometbft-keys.ts): read by CometBFT only, never warned about.
    expect(warnings).toEqual([
      'config.toml: unknown key "fast_sync" (ignored)',
      'config.toml [p2p]: unknown key "seeds" (ignored)',
      'config.toml: unknown table [fastsync] (ignored)',
    ])
  })

  describe('validation errors name the flag, variable or key', () => {
    it.each<[string, Record<string, unknown>, string]>([
      [
        'unknown namespace',
        { 'json-rpc.api': 'eth,foo' },
        '--json-rpc.api: unknown namespace "foo" (known: web3, net, eth, personal, debug, miner, txpool, evm, anvil, hardhat)',
      ],
      ['repeated namespace', { 'json-rpc.api': 'eth,net,eth' }, '--json-rpc.api: repeated API namespace "eth"'],
      [
        'enable without api',
        { 'json-rpc.enable': true, 'json-rpc.api': '' },
        '--json-rpc.api: cannot enable JSON-RPC without defining any API namespace',
      ],
      ['address', { 'json-rpc.address': 'localhost' }, '--json-rpc.address: cannot parse "localhost": want host:port'],
      [
        'ws address',
        { 'json-rpc.ws-address': '1.2.3.4:99999' },
        '--json-rpc.ws-address: cannot parse "1.2.3.4:99999": port "99999" is not a number from 0 to 65535',
      ],
      ['laddr', { 'rpc.laddr': 'tcp://x:y' }, '--rpc.laddr: cannot parse "tcp://x:y": port "y" is not a number from 0 to 65535'],
      ['p2p laddr empty', { 'p2p.laddr': '' }, '--p2p.laddr: must not be empty, want tcp://host:port'],
      ['duration', { 'json-rpc.evm-timeout': '5' }, '--json-rpc.evm-timeout: missing unit in duration "5"'],
      ['negative duration', { 'consensus.timeout_propose': '-1s' }, '--consensus.timeout_propose: must not be negative, got "-1s"'],
      ['negative number', { 'json-rpc.filter-cap': '-1' }, '--json-rpc.filter-cap: want a non-negative integer, got "-1"'],
      ['not a number', { 'rpc.max_body_bytes': '1e6' }, '--rpc.max_body_bytes: want a non-negative integer, got "1e6"'],
      ['feehistory-cap 0', { 'json-rpc.feehistory-cap': '0' }, '--json-rpc.feehistory-cap: want an integer ≥ 1, got "0"'],
      ['int32', { 'json-rpc.logs-cap': '3000000000' }, '--json-rpc.logs-cap: must be at most 2147483647'],
      ['txfee-cap', { 'json-rpc.txfee-cap': '-0.5' }, '--json-rpc.txfee-cap: want a non-negative number, got "-0.5"'],
      ['log level', { log_level: 'verbose' }, '--log_level: unknown log level "verbose" (known: debug, info, warn, error, none)'],
      ['log format', { log_format: 'xml' }, '--log_format: unknown log format "xml" (known: plain, json)'],
      ['gas price', { 'minimum-gas-prices': '1uatom' }, '--minimum-gas-prices: unknown denomination "uatom"'],
      ['boolean', { 'json-rpc.enable': 'yes' }, '--json-rpc.enable: want true or false, got "yes"'],
      ['peers', { 'p2p.persistent_peers': 'abc@1.2.3.4:26656' }, '--p2p.persistent_peers: cannot parse peer "abc@1.2.3.4:26656"'],
      ['indexer', { 'tx_index.indexer': 'psql' }, '--tx_index.indexer: unknown indexer "psql" (known: kv, null)'],
      [
        'same port',
        { 'json-rpc.enable': true, 'json-rpc.ws-address': '127.0.0.1:8545' },
        '--json-rpc.ws-address: 127.0.0.1:8545 uses the same port as app.toml [json-rpc] address (127.0.0.1:8545)',
      ],
      [
        'metrics namespace',
        { 'instrumentation.namespace': 'comet-bft' },
        '--instrumentation.namespace: "comet-bft" is not a metric name prefix: want letters, digits and underscores',
      ],
      [
        'metrics on a taken port',
        { 'instrumentation.prometheus': true, 'instrumentation.prometheus_listen_addr': ':26657' },
        '--instrumentation.prometheus_listen_addr: 0.0.0.0:26657 uses the same port as config.toml [rpc] laddr (127.0.0.1:26657)',
      ],
    ])('%s', async (_name, flags, message) => {
      const got = await loadError({ flags })
      expect(got.startsWith(message), got).toBe(true)
    })

    it('names environment variables', async () => {
      expect(await loadError({ env: { NODECTL_RPC_LADDR: '127.0.0.1:26657' } })).toBe(
        'NODECTL_RPC_LADDR: cannot parse "127.0.0.1:26657": want tcp://host:port',
      )
      expect(await loadError({ env: { NODECTL_JSON_RPC_API: 'eth,admin' } })).toMatch(/^NODECTL_JSON_RPC_API: unknown namespace "admin"/)
    })

    it('names TOML keys', async () => {
      await edit('config.toml', /^laddr = "tcp:\/\/127.0.0.1:26657"$/m, 'laddr = "tcp://x:y"')
      expect(await loadError()).toBe('config.toml [rpc] laddr: cannot parse "tcp://x:y": port "y" is not a number from 0 to 65535')
    })

    it('names TOML keys of the wrong type', async () => {
      await edit('app.toml', /^filter-cap = 200$/m, 'filter-cap = "lots"')
      expect(await loadError()).toBe('app.toml [json-rpc] filter-cap: want a non-negative integer, got "lots"')
    })

    it('names top-level keys', async () => {
      await edit('app.toml', /^minimum-gas-prices = .*$/m, 'minimum-gas-prices = "free"')
      expect(await loadError()).toMatch(/^app.toml minimum-gas-prices: cannot parse "free"/)
    })

    it('reports enable with an empty api from the file', async () => {
      await edit('app.toml', /^api = "eth,net,web3"$/m, 'api = ""')
      await edit('app.toml', /^enable = false$/m, 'enable = true')
      expect(await loadError()).toBe('app.toml [json-rpc] api: cannot enable JSON-RPC without defining any API namespace')
    })

    it('reports malformed TOML with its line', async () => {
      const path = join(home, 'config', 'app.toml')
      await writeFile(path, '# comment\n\nminimum-gas-prices = \n')
      expect(await loadError()).toBe('app.toml: malformed TOML at line 3: incomplete key-value declaration: no value specified')
      await writeFile(path, '[json-rpc]\nenable = true\nenable = false\n')
      expect(await loadError()).toMatch(/^app.toml: malformed TOML at line 3: /)
    })

    it('reports genesis problems', async () => {
      const path = join(home, 'config', 'genesis.json')
      const g = JSON.parse(await readFile(path, 'utf8'))
      g.chain_id = 'Nodectl_1-1'
      await writeFile(path, JSON.stringify(g))
      expect(await loadError()).toMatch(/^genesis.json: chain_id: invalid chain id "Nodectl_1-1"/)
    })

    it('refuses a home without genesis', async () => {
      home = await tempDir(join(tmpdir(), 'nodectl-load-empty-'))
      expect(await loadError()).toMatch(/^genesis.json: not found at .*: run "nodectl init <moniker>" first$/)
    })
  })

  it('miner_setGasPrice support: rewrites minimum-gas-prices in place', async () => {
    const path = join(home, 'config', 'app.toml')
    const before = await readFile(path, 'utf8')
    await saveMinimumGasPrices(path, 5_000_000_000n)
    const after = await readFile(path, 'utf8')
    expect(after).toBe(before.replace('minimum-gas-prices = "0anodectl"', 'minimum-gas-prices = "5000000000anodectl"'))
    expect((await loadNodeConfig({ home, env: {} })).minGasPrice).toBe(5_000_000_000n)
    await writeFile(path, '[json-rpc]\nenable = true\n')
    await saveMinimumGasPrices(path, 3n)
    expect((await loadNodeConfig({ home, env: {} })).minGasPrice).toBe(3n)
  })
})
