/**
 * The Prometheus endpoint (`[instrumentation] prometheus`): a dev node with it on, scraped while it
 * makes blocks, agrees with the node's own RPC answers (height, validators, mempool, peers, head block);
 * four validators over p2p count each other as peers and all as validators; a node without the setting
 * serves no metrics.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runNode } from '../../src/cli/start-node.js'
import { initDevHome } from '../../src/config/init-home.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { testNodeSettings } from '../../src/node/test-settings.js'
import { cometRpc, committed, rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'

const ON = { 'instrumentation.prometheus': true }

/** One sample of the exposition text: its labels and value. */
interface Sample {
  labels: Record<string, string>
  value: number
}

/** The samples of series `name` in Prometheus text. */
function samplesOf(text: string, name: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]))
    samples.push({ labels, value: Number(m[3]) })
  }
  return samples
}

/** The value of the one sample of `name` (whose labels include `labels`); throws when absent. */
function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const hit = samplesOf(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (!hit) throw new Error(`no sample of ${name} ${JSON.stringify(labels)}`)
  return hit.value
}

async function scrape(node: TestNode): Promise<string> {
  const res = await fetch(node.addresses.metrics!)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
  return res.text()
}

async function cometHeight(node: TestNode): Promise<number> {
  return Number((await cometRpc<{ sync_info: { latest_block_height: string } }>(node, 'status')).sync_info.latest_block_height)
}

describe('metrics of a dev node', () => {
  let node: TestNode
  let chainId: string
  const [alice, bob] = devAccounts()

  beforeAll(async () => {
    node = await startTestNode({ flags: ON })
    chainId = node.node.config.chainId
  })
  afterAll(() => node?.destroy())

  it('serves /metrics where start reports it, and 404 elsewhere', async () => {
    expect(node.addresses.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    const other = await fetch(node.addresses.metrics!.replace(/\/metrics$/, '/'))
    expect(other.status).toBe(404)
    await other.text()
  })

  it('agrees with the RPC while blocks are made', async () => {
    const sent: string[] = []
    for (let i = 0; i < 3; i++) {
      const reply = await rpc<string>(node.url, 'eth_sendTransaction', [{ from: alice!.address, to: bob!.address, value: '0x1' }])
      expect(reply.error).toBeUndefined()
      sent.push(reply.result!)
    }
    // A transaction behind a nonce gap stays queued: the pool holds something while blocks go on.
    const gapped = await rpc(node.url, 'eth_sendTransaction', [{ from: bob!.address, to: alice!.address, value: '0x1', nonce: '0x9' }])
    expect(gapped.error).toBeUndefined()
    await waitForBlock(node, async () => (await rpc(node.url, 'eth_getTransactionReceipt', [sent[2]])).result, 20_000, 'the receipts')

    // Scraped between two RPC answers: the metric lies between them (a block may come in between).
    const before = await cometHeight(node)
    const headBefore = Number((await rpc<string>(node.url, 'eth_blockNumber')).result)
    const text = await scrape(node)
    const after = await cometHeight(node)
    const headAfter = Number((await rpc<string>(node.url, 'eth_blockNumber')).result)
    const chain = { chain_id: chainId }
    for (const name of ['cometbft_consensus_height', 'cometbft_consensus_latest_block_height']) {
      expect(sampleValue(text, name, chain)).toBeGreaterThanOrEqual(before)
      expect(sampleValue(text, name, chain)).toBeLessThanOrEqual(after)
    }
    for (const name of ['chain_head_block', 'chain_head_header', 'chain_head_receipt']) {
      expect(sampleValue(text, name)).toBeGreaterThanOrEqual(headBefore)
      expect(sampleValue(text, name)).toBeLessThanOrEqual(headAfter)
    }

    const validators = await cometRpc<{ total: string; validators: { voting_power: string }[] }>(node, 'validators')
    expect(sampleValue(text, 'cometbft_consensus_validators', chain)).toBe(Number(validators.total))
    expect(sampleValue(text, 'cometbft_consensus_validators_power', chain)).toBe(
      validators.validators.reduce((sum, v) => sum + Number(v.voting_power), 0),
    )

    const unconfirmed = await cometRpc<{ total: string; total_bytes: string }>(node, 'num_unconfirmed_txs')
    expect(Number(unconfirmed.total)).toBe(1)
    expect(sampleValue(text, 'cometbft_mempool_size', chain)).toBe(1)
    expect(sampleValue(text, 'cometbft_mempool_size_bytes', chain)).toBe(Number(unconfirmed.total_bytes))
    const status = (await rpc<{ pending: string; queued: string }>(node.url, 'txpool_status')).result!
    expect(sampleValue(text, 'txpool_pending')).toBe(Number(status.pending))
    expect(sampleValue(text, 'txpool_queued')).toBe(Number(status.queued))
    expect(sampleValue(text, 'txpool_valid')).toBe(4)
    expect(sampleValue(text, 'cometbft_mempool_tx_size_bytes_count', chain)).toBe(4)

    const netInfo = await cometRpc<{ n_peers: string }>(node, 'net_info')
    expect(sampleValue(text, 'cometbft_p2p_peers', chain)).toBe(Number(netInfo.n_peers))
    expect(sampleValue(text, 'p2p_peers')).toBe(Number(netInfo.n_peers))

    // Three transactions in committed blocks since start; every committed block after the first timed.
    expect(sampleValue(text, 'cometbft_consensus_total_txs', chain)).toBe(3)
    expect(sampleValue(text, 'cometbft_consensus_block_interval_seconds_count', chain)).toBeGreaterThan(0)
    expect(sampleValue(text, 'cometbft_consensus_block_size_bytes', chain)).toBeGreaterThan(0)
    expect(sampleValue(text, 'cometbft_consensus_missing_validators', chain)).toBe(0)
    expect(sampleValue(text, 'cometbft_state_block_processing_time_count', chain)).toBeGreaterThanOrEqual(before)
    expect(
      sampleValue(text, 'cometbft_abci_connection_method_timing_seconds_count', { ...chain, method: 'finalize_block', type: 'sync' }),
    ).toBeGreaterThan(0)
    expect(sampleValue(text, 'cometbft_consensus_step_duration_seconds_count', { ...chain, step: 'RoundStepPropose' })).toBeGreaterThan(0)
    expect(sampleValue(text, 'cometbft_state_validator_set_updates', chain)).toBe(0)
    expect(sampleValue(text, 'chain_execution_count')).toBe(sampleValue(text, 'cometbft_state_block_processing_time_count', chain))
    expect(sampleValue(text, 'chain_write', { quantile: '0.5' })).toBeGreaterThan(0)
    expect(sampleValue(text, 'cometbft_blocksync_syncing', chain)).toBe(0)
    expect(sampleValue(text, 'cometbft_statesync_syncing', chain)).toBe(0)
    // The process metrics.
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0)
    expect(sampleValue(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0)
  })

  it('exports every series the Grafana dashboard in docs/ charts', async () => {
    const dashboard = JSON.parse(await readFile(join(import.meta.dirname, '../../docs/grafana-dashboard.json'), 'utf8')) as {
      panels: { targets?: { expr: string }[] }[]
    }
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))
    expect(exprs.length).toBeGreaterThan(20)
    // Series names: what remains once label matchers, `by (...)` groups and ranges are taken out, but functions.
    const series = new Set(
      exprs.flatMap((expr) =>
        (expr.replace(/\{[^}]*\}|by \([^)]*\)|\[[^\]]*\]/g, '').match(/[a-z_][a-z0-9_]*/g) ?? []).filter(
          (token) => token.includes('_') && token !== 'histogram_quantile',
        ),
      ),
    )
    expect(series.size).toBeGreaterThan(25)
    const text = await scrape(node)
    for (const name of series) {
      const base = name.replace(/_(bucket|sum|count)$/, '')
      expect(text.includes(`# TYPE ${name} `) || text.includes(`# TYPE ${base} `), name).toBe(true)
    }
  })

  it("counts the JSON-RPC's calls and refusals the way geth names them", async () => {
    const before = await scrape(node)
    await rpc(node.url, 'eth_chainId')
    const bad = await rpc(node.url, 'eth_sendRawTransaction', ['0x1234'])
    expect(bad.error).toBeDefined()
    const after = await scrape(node)
    const delta = (name: string) => sampleValue(after, name) - sampleValue(before, name)
    expect(delta('rpc_requests')).toBe(2)
    expect(delta('rpc_success')).toBe(1)
    expect(delta('rpc_failure')).toBe(1)
    expect(delta('txpool_invalid')).toBe(1)
    expect(sampleValue(after, 'cometbft_mempool_failed_txs', { chain_id: chainId })).toBeGreaterThanOrEqual(1)
    expect(sampleValue(after, 'rpc_duration_all_count') - sampleValue(before, 'rpc_duration_all_count')).toBe(2)
    expect(sampleValue(after, 'rpc_duration_eth_chainId_success_count')).toBeGreaterThanOrEqual(1)
    expect(sampleValue(after, 'rpc_duration_eth_sendRawTransaction_failure', { quantile: '0.5' })).toBeGreaterThan(0)
  })
})

describe('nodectl start with metrics on', () => {
  it('prints the endpoint in its banner and records it in data/listen.json', async () => {
    const home = await mkdtemp(join(tmpdir(), 'nodectl-metrics-start-'))
    await initDevHome(home, { settings: testNodeSettings() })
    const lines: string[] = []
    let stop!: () => void
    let served!: (url: string | undefined) => void
    const serving = new Promise<string | undefined>((r) => (served = r))
    const stopped = runNode({ home, json: true, ...ON }, 'test', {
      log: (line) => lines.push(line),
      logToStderr: () => {},
      warn: () => {},
      serving: (addresses) => {
        served(addresses.metrics)
        return new Promise<void>((r) => (stop = r))
      },
    })
    try {
      const url = await Promise.race([serving, stopped.then(() => undefined)])
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
      const banner = JSON.parse(lines[0]!) as { metrics: string }
      expect(banner.metrics).toBe(url)
      const record = JSON.parse(await readFile(join(home, 'data', 'listen.json'), 'utf8')) as { metrics: string }
      expect(record.metrics).toBe(url)
      expect((await fetch(url!)).status).toBe(200)
    } finally {
      stop?.()
      await stopped
      await rm(home, { recursive: true, force: true })
    }
  })
})

describe('metrics off (the default)', () => {
  it('a node without [instrumentation] prometheus builds and serves none', async () => {
    const node = await startTestNode()
    try {
      expect(node.node.config.instrumentation).toMatchObject({ prometheus: false, namespace: 'cometbft' })
      expect(node.addresses.metrics).toBeUndefined()
      expect(node.node.components.metrics).toBeUndefined()
    } finally {
      await node.destroy()
    }
  })
})

describe('metrics of four validators over p2p', () => {
  const VALIDATORS = 4
  const homes: string[] = []
  const nodes: TestNode[] = []

  beforeAll(async () => {
    for (let i = 0; i < VALIDATORS; i++) {
      const home = await mkdtemp(join(tmpdir(), 'nodectl-metrics-'))
      homes.push(home)
      await initDevHome(home, { settings: testNodeSettings(`node${i}`) })
    }
    // One genesis with every home's validator, the same bytes in each home.
    const genesisPath = (home: string) => join(home, 'config', 'genesis.json')
    const genesis = JSON.parse(await readFile(genesisPath(homes[0]!), 'utf8')) as { validators: unknown[] }
    for (const home of homes.slice(1)) {
      genesis.validators.push(...(JSON.parse(await readFile(genesisPath(home), 'utf8')) as { validators: unknown[] }).validators)
    }
    for (const home of homes) await writeFile(genesisPath(home), JSON.stringify(genesis, null, 2))
    // Each node dials the ones started before it: a full mesh.
    const peers: string[] = []
    for (const home of homes) {
      const node = await startTestNode({ home, flags: { ...ON, 'p2p.persistent_peers': peers.join(',') } })
      nodes.push(node)
      const host = node.node.components.p2p!.host
      peers.push(`${host.nodeId}@127.0.0.1:${host.listenPort}`)
    }
    for (const node of nodes) {
      await waitForBlock(node, async () => Number((await cometRpc<{ n_peers: string }>(node, 'net_info')).n_peers) === VALIDATORS - 1)
    }
    // Blocks each node committed itself, all four connected: their last commits are in the metrics.
    const target = Math.max(...nodes.map((n) => n.node.components.engine.height)) + 2
    for (const node of nodes) await committed(node, target)
  }, 90_000)

  afterAll(async () => {
    for (const n of nodes.splice(0)) await n.stop()
    for (const h of homes.splice(0)) await rm(h, { recursive: true, force: true })
  })

  it('each counts the others as peers and all as validators, with its own signing record', async () => {
    for (const node of nodes) {
      const chain = { chain_id: node.node.config.chainId }
      const text = await scrape(node)
      const netInfo = await cometRpc<{ n_peers: string }>(node, 'net_info')
      expect(sampleValue(text, 'cometbft_p2p_peers', chain)).toBe(Number(netInfo.n_peers))
      expect(sampleValue(text, 'p2p_peers')).toBe(VALIDATORS - 1)
      const validators = await cometRpc<{ total: string; validators: { voting_power: string }[] }>(node, 'validators')
      expect(sampleValue(text, 'cometbft_consensus_validators', chain)).toBe(Number(validators.total))
      expect(sampleValue(text, 'cometbft_consensus_validators', chain)).toBe(VALIDATORS)
      expect(sampleValue(text, 'cometbft_consensus_validators_power', chain)).toBe(
        validators.validators.reduce((sum, v) => sum + Number(v.voting_power), 0),
      )
      // A commit needs 3 of the 4 precommits: the fourth may be missing from a block's last commit.
      expect(sampleValue(text, 'cometbft_consensus_missing_validators', chain)).toBeLessThanOrEqual(1)
      const power = samplesOf(text, 'cometbft_consensus_validator_power')
      expect(power).toHaveLength(1)
      expect(power[0]!.labels.validator_address).toMatch(/^[0-9A-F]{40}$/)
      // Each block's last commit either holds this validator's precommit (last signed height) or not (a missed block).
      const record = [
        ...samplesOf(text, 'cometbft_consensus_validator_last_signed_height'),
        ...samplesOf(text, 'cometbft_consensus_validator_missed_blocks'),
      ]
      expect(record.length).toBeGreaterThan(0)
      for (const sample of record) {
        expect(sample.labels.validator_address).toBe(power[0]!.labels.validator_address)
        expect(sample.value).toBeGreaterThan(0)
      }
    }
  })
})
