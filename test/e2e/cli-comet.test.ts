/**
 * The consensus-RPC client commands (`query tx-search`, `block-search`, `status`, `validators`,
 * `block-results`, `commit`, `consensus-state`, `net-info`, `unconfirmed`, `subscribe events`) run
 * in-process against real dev nodes: --json prints the node's result, the human output shows the
 * same facts in tables or one line per event, the default endpoint comes from config.toml, the
 * node's errors are one line with code and data, and the stream reconnects when the node restarts.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JsonRpcProvider, Wallet, getBytes, parseEther, type TransactionReceipt } from 'ethers'
import { hashTx } from '../../src/comet/hash.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToUpperHex } from '../../src/primitives/hex.js'
import QueryBlockResults from '../../src/commands/query/block-results.js'
import QueryBlockSearch from '../../src/commands/query/block-search.js'
import QueryCommit from '../../src/commands/query/commit.js'
import QueryConsensusState from '../../src/commands/query/consensus-state.js'
import QueryNetInfo from '../../src/commands/query/net-info.js'
import QueryStatus from '../../src/commands/query/status.js'
import QueryTxSearch from '../../src/commands/query/tx-search.js'
import QueryUnconfirmed from '../../src/commands/query/unconfirmed.js'
import QueryValidators from '../../src/commands/query/validators.js'
import SubscribeEvents from '../../src/commands/subscribe/events.js'
import type {
  CometBlockResults,
  CometBlockSearch,
  CometConsensusState,
  CometNetInfo,
  CometSignedHeader,
  CometStatus,
  CometTxSearch,
  CometValidators,
} from '../../src/cli/comet-types.js'
import { startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { jsonOf, runCli, runCliOnTerminal, startCli } from '../helpers/cli.js'
import { pickPort, withPortRetry } from '../helpers/ports.js'

const [A0, A1, A2] = devAccounts(3)

/**
 * Starts the dev node on a port chosen ahead (restarts keep the client's URL): outside the ephemeral range,
 * where no outgoing connection takes it between restarts, and on another one if it is taken at the first start.
 */
async function startOnFixedPort(setPort: (port: number) => void, flags: () => Record<string, unknown>): Promise<TestNode> {
  const home = await mkdtemp(join(tmpdir(), 'nodectl-test-'))
  return withPortRetry(async () => {
    setPort(await pickPort())
    return startTestNode({ home, flags: flags() })
  })
}

/** Signs a 1-ether transfer from `from` to `to` and returns the raw bytes (not yet sent). */
async function signTransfer(provider: JsonRpcProvider, from: { privateKey: string }, to: string): Promise<string> {
  const wallet = new Wallet(from.privateKey, provider)
  return wallet.signTransaction(await wallet.populateTransaction({ to, value: parseEther('1') }))
}

const out = (run: { stdout: string[] }): string => run.stdout.join('\n')

describe('nodectl consensus-RPC commands against a dev node', () => {
  let t: TestNode
  let rpc: string[]
  let provider: JsonRpcProvider
  const sent: { raw: string; receipt: TransactionReceipt; consensusHash: string }[] = []

  const send = async (to: string): Promise<(typeof sent)[number]> => {
    const raw = await signTransfer(provider, A0!, to)
    const receipt = (await (await provider.broadcastTransaction(raw)).wait())!
    return { raw, receipt, consensusHash: bytesToUpperHex(hashTx(getBytes(raw))) }
  }

  beforeAll(async () => {
    t = await startTestNode()
    rpc = ['--rpc', t.addresses.cometRpc!]
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    for (let i = 0; i < 2; i++) sent.push(await send(A1!.address))
    await waitFor(() => t.node.components.blockStore.height() > sent[1]!.receipt.blockNumber, 10_000, 'a block after the txs')
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('tx-search by EVM hash finds the tx: height, consensus hash, EVM hash, code, gas', async () => {
    const { receipt, consensusHash } = sent[0]!
    const query = `ethereum_tx.ethereumTxHash='${receipt.hash}'`
    const json = jsonOf<CometTxSearch>(await runCli(QueryTxSearch, [query, ...rpc, '--json']))
    expect(json.total_count).toBe('1')
    expect(json.txs[0]).toMatchObject({
      hash: consensusHash,
      height: String(receipt.blockNumber),
      tx_result: { code: 0, gas_used: '21000' },
    })
    const human = await runCliOnTerminal(QueryTxSearch, [query, ...rpc])
    expect(human.error).toBeUndefined()
    expect(out(human)).toContain('1 matching transaction(s)')
    const row = human.stdout
      .join('\n')
      .split('\n')
      .find((l) => l.includes(consensusHash))!
    expect(
      row
        .split('│')
        .map((c) => c.trim())
        .filter(Boolean),
    ).toEqual([String(receipt.blockNumber), String(receipt.index), consensusHash, receipt.hash, '0', '21000'])
    // Into a pipe: the same row as tab-separated fields, for cut and awk.
    const piped = (await runCli(QueryTxSearch, [query, ...rpc])).stdout.join('\n').split('\n')
    expect(piped.find((l) => l.includes(consensusHash))!.split('\t')).toEqual([
      String(receipt.blockNumber),
      String(receipt.index),
      consensusHash,
      receipt.hash,
      '0',
      '21000',
    ])
  })

  it('tx-search pages, orders and proves', async () => {
    const query = `ethereum.sender='${A0!.address}' AND tx.height>=1`
    const page2 = jsonOf<CometTxSearch>(await runCli(QueryTxSearch, [query, ...rpc, '--per-page', '1', '--page', '2', '--json']))
    expect(page2.total_count).toBe('2')
    expect(page2.txs.map((x: { hash: string }) => x.hash)).toEqual([sent[1]!.consensusHash])
    const desc = jsonOf<CometTxSearch>(await runCli(QueryTxSearch, [query, ...rpc, '--per-page', '1', '--order-by', 'desc', '--json']))
    expect(desc.txs[0].hash).toBe(sent[1]!.consensusHash)
    const human = await runCliOnTerminal(QueryTxSearch, [query, ...rpc, '--per-page', '1'])
    expect(out(human)).toContain('2 matching transaction(s), 1 on page 1')
    const proved = jsonOf<{ txs: { proof: { data: string } }[] }>(
      await runCli(QueryTxSearch, [`tx.hash='${sent[0]!.consensusHash}'`, ...rpc, '--prove', '--json']),
    )
    expect(proved.txs[0].proof.data).toBe(Buffer.from(getBytes(sent[0]!.raw)).toString('base64'))
  })

  it('block-search by height shows the block, its hash and tx count', async () => {
    const h = sent[0]!.receipt.blockNumber
    const json = jsonOf<CometBlockSearch>(await runCli(QueryBlockSearch, [`block.height=${h}`, ...rpc, '--json']))
    expect(json.total_count).toBe('1')
    expect(json.blocks[0].block.header.height).toBe(String(h))
    expect(json.blocks[0].block.data.txs).toContain(Buffer.from(getBytes(sent[0]!.raw)).toString('base64'))
    const human = await runCliOnTerminal(QueryBlockSearch, [`block.height>=1 AND block.height<=${h}`, ...rpc, '--order-by', 'asc'])
    expect(out(human)).toContain(`${h} matching block(s)`)
    expect(out(human)).toContain(json.blocks[0].block_id.hash)
  })

  it('status shows the chain id, the latest height and the validator; the default --rpc comes from config.toml', async () => {
    const json = jsonOf<CometStatus>(await runCli(QueryStatus, [...rpc, '--json']))
    expect(json.node_info.network).toBe(t.node.config.chainId)
    expect(Number(json.sync_info.latest_block_height)).toBeGreaterThan(sent[1]!.receipt.blockNumber)
    expect(json.validator_info.address).toBe(bytesToUpperHex(t.node.components.engine.validatorAddress!))
    // A home whose config.toml listens on every interface: reached on loopback.
    const home = await mkdtemp(join(tmpdir(), 'nodectl-cli-comet-'))
    try {
      await mkdir(join(home, 'config'))
      await writeFile(join(home, 'config/config.toml'), `[rpc]\nladdr = "${t.addresses.cometRpc!.replace('127.0.0.1', '0.0.0.0')}"\n`)
      const human = await runCliOnTerminal(QueryStatus, ['--home', home])
      expect(human.error).toBeUndefined()
      expect(out(human)).toMatch(new RegExp(`chain id\\s*│ ${t.node.config.chainId}`))
      expect(out(human)).toMatch(/latest height\s*│ \d+/)
      const latest = Number(/latest height\s*│ (\d+)/.exec(out(human))![1])
      expect(latest).toBeGreaterThanOrEqual(Number(json.sync_info.latest_block_height))
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })

  it('validators lists this node with its power, at the next height or a given one', async () => {
    const address = bytesToUpperHex(t.node.components.engine.validatorAddress!)
    const json = jsonOf<CometValidators>(await runCli(QueryValidators, [...rpc, '--json']))
    expect(json).toMatchObject({ count: '1', total: '1', validators: [{ address, voting_power: '10' }] })
    const atOne = jsonOf<CometValidators>(await runCli(QueryValidators, [...rpc, '--height', '1', '--json']))
    expect(atOne.block_height).toBe('1')
    const human = await runCliOnTerminal(QueryValidators, [...rpc, '--height', '1'])
    expect(out(human)).toContain('validators at height 1: 1 of 1')
    expect(out(human)).toMatch(new RegExp(`${address}\\s*│ tendermint/PubKeyEd25519 \\S+\\s*│ 10`))
  })

  it('block-results shows the tx results with their EVM hashes and the block events', async () => {
    const { receipt } = sent[0]!
    const json = jsonOf<CometBlockResults>(await runCli(QueryBlockResults, [String(receipt.blockNumber), ...rpc, '--json']))
    expect(json.height).toBe(String(receipt.blockNumber))
    expect(json.txs_results![receipt.index]).toMatchObject({ code: 0, gas_used: '21000' })
    const human = await runCliOnTerminal(QueryBlockResults, [String(receipt.blockNumber), ...rpc])
    expect(out(human)).toContain(receipt.hash)
    expect(out(human)).toMatch(/fee_market\s*│ base_fee=\d+/)
    expect(out(human)).toMatch(/bloom=0x0*… \(514 chars\)/)
  })

  it('commit shows the signed header and the precommit signatures', async () => {
    const h = sent[0]!.receipt.blockNumber
    const address = bytesToUpperHex(t.node.components.engine.validatorAddress!)
    const json = jsonOf<CometSignedHeader>(await runCli(QueryCommit, [String(h), ...rpc, '--json']))
    expect(json.canonical).toBe(true)
    expect(json.signed_header.header.height).toBe(String(h))
    expect(json.signed_header.commit.signatures![0]).toMatchObject({ block_id_flag: 2, validator_address: address })
    const human = await runCliOnTerminal(QueryCommit, [String(h), ...rpc])
    expect(out(human)).toContain(json.signed_header.commit.block_id.hash)
    expect(out(human)).toMatch(new RegExp(`${address}\\s*│ commit`))
    const latest = jsonOf<CometSignedHeader>(await runCli(QueryCommit, [...rpc, '--json']))
    expect(latest.canonical).toBe(false)
  })

  it('consensus-state shows height/round/step with the step named, and the proposer', async () => {
    const json = jsonOf<CometConsensusState>(await runCli(QueryConsensusState, [...rpc, '--json']))
    const [height] = json.round_state['height/round/step'].split('/').map(Number)
    expect(height).toBeGreaterThan(sent[1]!.receipt.blockNumber)
    const human = await runCliOnTerminal(QueryConsensusState, [...rpc])
    expect(out(human)).toMatch(/step\s*│ RoundStep[A-Za-z]+/)
    expect(out(human)).toContain(`${bytesToUpperHex(t.node.components.engine.validatorAddress!)} (index 0)`)
  })

  it('net-info shows the listener state and no peers', async () => {
    const json = jsonOf<CometNetInfo>(await runCli(QueryNetInfo, [...rpc, '--json']))
    expect(json).toMatchObject({ n_peers: '0', peers: [] })
    expect(typeof json.listening).toBe('boolean')
    expect(out(await runCliOnTerminal(QueryNetInfo, [...rpc]))).toMatch(/peers\s*│ 0/)
  })

  it("the node's errors are one line with code and data, exit 1; --json gives {error}", async () => {
    const bad = await runCli(QueryTxSearch, ["tm.event='Tx' OR tx.height=1", ...rpc])
    expect(bad.error?.message).toBe('node error -32603: Internal error: offset 14: expected "AND" or end of query, found "OR"')
    expect(bad.exitCode).toBe(1)
    const badJson = await runCli(QueryTxSearch, ["tm.event='Tx' OR tx.height=1", ...rpc, '--json'])
    expect(jsonOf<{ error: { code: number; message: string } }>(badJson).error).toMatchObject({
      code: -32603,
      message: expect.stringContaining('offset 14'),
    })
    expect(badJson.exitCode).toBe(1)
    const page = await runCli(QueryTxSearch, [`tx.hash='${sent[0]!.consensusHash}'`, ...rpc, '--page', '3'])
    expect(page.error?.message).toBe('node error -32603: Internal error: page should be within [1, 1] range, given 3')
    const missing = await runCli(QueryBlockResults, ['100000', ...rpc])
    expect(missing.error?.message).toMatch(
      /^node error -32603: Internal error: height 100000 must be less than or equal to the current blockchain height \d+$/,
    )
  })

  it('an unreachable node: "cannot reach node at URL" and exit 1 (an unknown tm.event is warned about first)', async () => {
    const run = await runCli(QueryStatus, ['--rpc', 'tcp://127.0.0.1:1'])
    expect(run.error?.message).toMatch(/^cannot reach node at http:\/\/127\.0\.0\.1:1\b/)
    expect(run.exitCode).toBe(1)
    const unusable = await runCli(QueryStatus, ['--comet-url', 'ftp://127.0.0.1:1'])
    expect(unusable.error?.message).toBe(
      'malformed URL "ftp://127.0.0.1:1" for --comet-url: unsupported scheme "ftp", want http, https, tcp or host:port',
    )
    expect(unusable.exitCode).toBe(2)
    const misspelt = await runCli(SubscribeEvents, ["tm.event='NewBlok' OR tm.event='Tx'", '--comet-url', 'tcp://127.0.0.1:1'])
    expect(misspelt.stderr.join('\n')).toMatch(/no event is named "NewBlok": tm.event='NewBlok' never matches \(known: NewBlock,/)
    expect(misspelt.stderr.join('\n')).not.toMatch(/"Tx"/)
    const sub = await runCli(SubscribeEvents, ["tm.event='NewBlock'", '--rpc', 'tcp://127.0.0.1:1'])
    expect(sub.error?.message).toMatch(/^cannot reach node at ws:\/\/127\.0\.0\.1:1\/websocket\b/)
    expect(sub.exitCode).toBe(1)
  })

  it('subscribe events "tm.event=\'NewBlock\'" --json prints consecutive heights until Ctrl-C', async () => {
    const cli = startCli(SubscribeEvents, ["tm.event='NewBlock'", ...rpc, '--json'])
    await waitFor(() => cli.stdout.length >= 3, 15_000, 'three NewBlock events')
    process.emit('SIGINT')
    const run = await cli.done
    expect(run.error).toBeUndefined()
    expect(run.result).toMatchObject({ stoppedBy: 'signal', reconnects: 0 })
    const events = run.stdout.map((l) => JSON.parse(l))
    expect(events[0]).toMatchObject({
      query: "tm.event='NewBlock'",
      data: { type: 'tendermint/event/NewBlock' },
      events: { 'tm.event': ['NewBlock'] },
    })
    const heights = events.map((e) => Number(e.data.value.block.header.height))
    for (let i = 1; i < heights.length; i++) expect(heights[i]).toBe(heights[i - 1]! + 1)
    expect(run.stderr).toEqual([])
  })

  it('subscribe events: human lines for NewBlock, Tx (with the EVM hash) and Vote', async () => {
    const blocks = startCli(SubscribeEvents, ["tm.event='NewBlock'", ...rpc, '--count', '2'])
    const blockRun = await blocks.done
    expect(blockRun.error).toBeUndefined()
    const [h1, h2] = blockRun.stdout.map((l) =>
      Number(/^NewBlock height=(\d+) hash=[0-9A-F]{64} txs=\d+ time=\S+Z proposer=[0-9A-F]{40}$/.exec(l)![1]),
    )
    expect(h2).toBe(h1! + 1)
    expect(blockRun.stderr.join('\n')).toContain(
      `subscribed to tm.event='NewBlock' at ${t.addresses.cometRpc!.replace('tcp:', 'ws:')}/websocket`,
    )

    const txs = startCli(SubscribeEvents, [`tm.event='Tx' AND ethereum.recipient='${A2!.address}'`, ...rpc, '--count', '1'])
    await waitFor(() => txs.stderr.some((l) => l.startsWith('subscribed to')), 5_000, 'the Tx subscription')
    const tx = await send(A2!.address)
    const txRun = await txs.done
    expect(txRun.stdout).toEqual([
      `Tx height=${tx.receipt.blockNumber} index=${tx.receipt.index} hash=${tx.consensusHash} evm=${tx.receipt.hash} code=0 gas_used=21000`,
    ])

    const votes = await runCli(SubscribeEvents, ["tm.event='Vote'", ...rpc, '--count', '2'])
    expect(votes.error).toBeUndefined()
    for (const l of votes.stdout)
      expect(l).toMatch(/^Vote type=(prevote|precommit) height=\d+ round=\d+ validator=[0-9A-F]{40}#0 block=([0-9A-F]{64}|nil)$/)
  })

  it("subscribe events with a malformed query: the node's error and exit 1", async () => {
    const run = await runCli(SubscribeEvents, ["tm.event=='x'", ...rpc])
    expect(run.error?.message).toMatch(/^node error -32603: Internal error: failed to parse query: /)
    expect(run.exitCode).toBe(1)
  })
})

describe('nodectl consensus-RPC commands against a node that waits between blocks', () => {
  let t: TestNode
  let port: number
  let provider: JsonRpcProvider
  // One second and a half between a commit and the next height: a tx sent just after a block waits in the mempool.
  const flags = () => ({
    'rpc.laddr': `tcp://127.0.0.1:${port}`,
    'consensus.skip_timeout_commit': false,
    'consensus.timeout_commit': '1500ms',
  })
  const rpc = () => ['--rpc', `http://127.0.0.1:${port}`]

  beforeAll(async () => {
    t = await startOnFixedPort((p) => (port = p), flags)
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    await waitFor(() => t.node.components.blockStore.height() >= 1, 10_000, 'height 1')
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('unconfirmed lists a waiting tx with its consensus and EVM hashes', async () => {
    const height = t.node.components.blockStore.height()
    await waitFor(() => t.node.components.blockStore.height() > height, 10_000, 'a new block')
    const raw = await signTransfer(provider, A0!, A1!.address)
    const pending = await provider.broadcastTransaction(raw)
    const json = jsonOf(await runCli(QueryUnconfirmed, [...rpc(), '--json']))
    expect(json).toMatchObject({
      n_txs: '1',
      total: '1',
      total_bytes: String(getBytes(raw).length),
      txs: [Buffer.from(getBytes(raw)).toString('base64')],
    })
    const human = await runCliOnTerminal(QueryUnconfirmed, [...rpc(), '--limit', '5'])
    expect(out(human)).toContain('1 unconfirmed transaction(s)')
    expect(out(human)).toMatch(new RegExp(`${bytesToUpperHex(hashTx(getBytes(raw)))}\\s*│ ${pending.hash}\\s*│ ${getBytes(raw).length}`))
    await pending.wait()
    expect(jsonOf(await runCli(QueryUnconfirmed, [...rpc(), '--json']))).toMatchObject({ n_txs: '0', total: '0', txs: [] })
  })

  it('subscribe events reconnects with back-off when the node restarts, and says so', async () => {
    const cli = startCli(SubscribeEvents, ["tm.event='NewBlock'", ...rpc(), '--max-reconnect-delay', '100'])
    await waitFor(() => cli.stdout.length >= 1, 10_000, 'a first block')
    const home = t.home
    await t.stop()
    provider.destroy()
    await waitFor(() => cli.stderr.some((l) => l.includes('reconnecting to')), 10_000, 'a reconnection attempt')
    t = await startTestNode({ home, flags: flags() })
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    await waitFor(() => cli.stderr.some((l) => l.startsWith('reconnected to')), 10_000, 'the reconnection')
    const seen = cli.stdout.length
    await waitFor(() => cli.stdout.length > seen, 10_000, 'a block after the restart')
    process.emit('SIGINT')
    const run = await cli.done
    expect(run.error).toBeUndefined()
    expect(run.result).toMatchObject({ stoppedBy: 'signal', reconnects: 1 })
    expect(run.stdout.at(-1)).toMatch(/^NewBlock height=\d+ /)
    const ws = `ws://127.0.0.1:${port}/websocket`
    expect(run.stderr.some((l) => l.startsWith(`connection lost: reconnecting to ${ws} in `) && l.endsWith(' ms (attempt 1)'))).toBe(true)
    expect(run.stderr.some((l) => new RegExp(`^reconnected to ${ws}; subscribed again as \\d+$`).test(l))).toBe(true)
  }, 30_000)
})
