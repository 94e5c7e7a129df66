import { parse } from 'smol-toml'
import { describe, expect, it } from 'vitest'
import { defaultNodeSettings, devNodeSettings, type NodeSettings } from '../../../src/config/defaults.js'
import { testConsensusConfig } from '../../../src/consensus/options.js'
import { renderAppToml, renderConfigToml } from '../../../src/config/render-toml.js'
import { SECTIONS, SETTINGS, envNameOf } from '../../../src/config/settings.js'

/** Loads rendered TOML back into fresh settings through the table. */
function readBack(config: string, app: string, base: NodeSettings): NodeSettings {
  const docs = {
    'config.toml': parse(config, { integersAsBigInt: 'asNeeded' }),
    'app.toml': parse(app, { integersAsBigInt: 'asNeeded' }),
  } as Record<string, Record<string, unknown>>
  for (const s of SETTINGS) {
    const doc = docs[s.file]!
    const raw = s.section ? (doc[s.section] as Record<string, unknown>)[s.key] : doc[s.key]
    expect(raw, `${s.file} ${s.section} ${s.key}`).toBeDefined()
    s.write(base, raw)
  }
  return base
}

describe('settings table', () => {
  it('has unique flags, environment names and keys', () => {
    expect(new Set(SETTINGS.map((s) => s.flag)).size).toBe(SETTINGS.length)
    expect(new Set(SETTINGS.map((s) => s.env)).size).toBe(SETTINGS.length)
    expect(new Set(SETTINGS.map((s) => `${s.file}|${s.section}|${s.key}`)).size).toBe(SETTINGS.length)
  })

  it('names environment variables NODECTL_<SECTION>_<KEY>', () => {
    expect(envNameOf('json-rpc', 'address')).toBe('NODECTL_JSON_RPC_ADDRESS')
    expect(envNameOf('rpc', 'laddr')).toBe('NODECTL_RPC_LADDR')
    expect(envNameOf('', 'minimum-gas-prices')).toBe('NODECTL_MINIMUM_GAS_PRICES')
    expect(envNameOf('', 'log_level')).toBe('NODECTL_LOG_LEVEL')
    expect(SETTINGS.find((s) => s.key === 'timeout_propose')!.flag).toBe('consensus.timeout_propose')
  })

  it('documents every setting with its default', () => {
    for (const s of SETTINGS) expect(s.doc, s.flag).toMatch(/default/)
    for (const s of SETTINGS)
      expect(
        SECTIONS.some((x) => x.file === s.file && x.name === s.section),
        s.flag,
      ).toBe(true)
  })

  it('holds exactly the Evmos [json-rpc] keys plus the documented limits', () => {
    const keys = SETTINGS.filter((s) => s.section === 'json-rpc')
      .map((s) => s.key)
      .sort()
    expect(keys).toEqual(
      [
        'enable',
        'address',
        'ws-address',
        'api',
        'gas-cap',
        'evm-timeout',
        'txfee-cap',
        'filter-cap',
        'feehistory-cap',
        'logs-cap',
        'block-range-cap',
        'http-timeout',
        'http-idle-timeout',
        'allow-insecure-unlock',
        'client-identity',
        'tracer-concurrency',
        'trace-response-max-size',
        'call-workers',
        'allow-unprotected-txs',
        'max-open-connections',
        'enable-indexer',
        'batch-request-limit',
        'batch-response-max-size',
        'http-body-limit',
        'ws-origins',
        'http-corsdomain',
        'http-vhosts',
      ].sort(),
    )
  })
})

describe('TOML templates', () => {
  it('round-trip the defaults', () => {
    const settings = defaultNodeSettings('node0')
    const back = readBack(renderConfigToml(settings), renderAppToml(settings), devNodeSettings('other'))
    expect(back).toEqual(settings)
  })

  it('round-trip the dev preset and unusual values', () => {
    const settings = devNodeSettings('dev "quoted" \\ name')
    settings.consensus = { ...testConsensusConfig }
    settings.rpc.laddr = undefined
    settings.jsonRpc.gasCap = 2n ** 62n
    settings.jsonRpc.txFeeCap = 0.25
    settings.jsonRpc.wsAddress = { host: '::1', port: 0 }
    settings.p2p.persistentPeers = [
      '0123456789abcdef0123456789abcdef01234567@10.0.0.2:26656',
      'fedcba9876543210fedcba9876543210fedcba98@node1:26656',
    ]
    settings.minGasPrice = 123n
    settings.consensus.timeoutPropose = 0.5
    const back = readBack(renderConfigToml(settings), renderAppToml(settings), defaultNodeSettings('x'))
    expect(back).toEqual(settings)
  })

  it('writes the documented literal defaults', () => {
    const config = parse(renderConfigToml(defaultNodeSettings('n'))) as Record<string, Record<string, unknown>>
    expect(config.rpc).toMatchObject({
      laddr: 'tcp://127.0.0.1:26657',
      max_open_connections: 900,
      max_subscription_clients: 100,
      max_subscriptions_per_client: 5,
      timeout_broadcast_tx_commit: '10s',
      max_request_batch_size: 10,
      max_body_bytes: 1000000,
      max_header_bytes: 1048576,
      cors_allowed_origins: [],
    })
    expect(config.p2p).toEqual({
      laddr: 'tcp://0.0.0.0:26656',
      persistent_peers: '',
      max_num_inbound_peers: 40,
      max_num_outbound_peers: 10,
      handshake_timeout: '20s',
      dial_timeout: '3s',
    })
    expect(config.mempool).toMatchObject({ size: 5120, max_tx_bytes: 131072 })
    expect(config.consensus).toMatchObject({
      timeout_propose: '3s',
      timeout_propose_delta: '500ms',
      timeout_prevote: '1s',
      timeout_precommit: '1s',
      timeout_commit: '1s',
      skip_timeout_commit: false,
      create_empty_blocks: true,
      create_empty_blocks_interval: '0s',
      double_sign_check_height: 0,
    })
    expect(config.tx_index).toEqual({ indexer: 'kv' })
    expect(config.log_level).toBe('info')
    const app = parse(renderAppToml(defaultNodeSettings('n'))) as Record<string, Record<string, unknown>>
    expect(app['minimum-gas-prices']).toBe('0anodectl')
    expect(app.api).toEqual({ 'enabled-unsafe-cors': false })
    expect(app['json-rpc']).toEqual({
      enable: false,
      address: '127.0.0.1:8545',
      'ws-address': '0.0.0.0:8546',
      api: 'eth,net,web3',
      'gas-cap': 25000000,
      'evm-timeout': '5s',
      'txfee-cap': 1,
      'filter-cap': 200,
      'feehistory-cap': 100,
      'logs-cap': 10000,
      'block-range-cap': 10000,
      'http-timeout': '30s',
      'http-idle-timeout': '2m0s',
      'allow-insecure-unlock': false,
      'client-identity': 'nodectl',
      'tracer-concurrency': 2,
      'trace-response-max-size': 25000000,
      'call-workers': 1,
      'allow-unprotected-txs': false,
      'max-open-connections': 900,
      'enable-indexer': false,
      'batch-request-limit': 1000,
      'batch-response-max-size': 25000000,
      'http-body-limit': 5242880,
      'ws-origins': ['127.0.0.1', 'localhost'],
      'http-corsdomain': [],
      'http-vhosts': ['localhost'],
    })
  })

  it('comments every key', () => {
    const text = renderConfigToml(defaultNodeSettings('n'))
    const lines = text.split('\n')
    lines.forEach((line, i) => {
      if (/^[a-z_-]+ = /.test(line)) expect(lines[i - 1], line).toMatch(/^# /)
    })
  })
})
