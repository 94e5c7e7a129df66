/**
 * The pure parts of the consensus-RPC commands: where `--rpc` / config.toml point, how the node's
 * errors read, what the tables compute (EVM hash, raw tx hashes, steps, flags) and the one-line
 * rendering of each kind of subscription event.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeCometError, encodeCometInt } from '../../../src/cli/comet-command.js'
import { cometWsUrlOf, resolveCometEndpoints } from '../../../src/cli/comet-endpoints.js'
import { describeEventLine, eventNameOf } from '../../../src/cli/comet-event-line.js'
import {
  blockIdFlagName,
  evmHashOf,
  formatAttributes,
  hashesOfRawTx,
  parseHeightRoundStep,
  shorten,
  txRow,
} from '../../../src/cli/comet-render.js'
import type { CometEventMessage, CometTx } from '../../../src/cli/comet-types.js'
import { JsonRpcClientError, NodeUnreachableError, cometSubscriptions, ethSubscriptions } from '../../../src/rpc/client/index.js'

const HASH = 'AB'.repeat(32)
const EVM_HASH = `0x${'cd'.repeat(32)}`

const txResult = {
  code: 0,
  gas_used: '21000',
  events: [
    { type: 'ethereum', attributes: [{ key: 'sender', value: '0x11' }] },
    {
      type: 'ethereum_tx',
      attributes: [
        { key: 'ethereumTxHash', value: EVM_HASH },
        { key: 'txHash', value: HASH },
      ],
    },
  ],
}

describe('consensus RPC endpoints', () => {
  it('WebSocket URL: same host and path plus /websocket', () => {
    expect(cometWsUrlOf('http://127.0.0.1:26657')).toBe('ws://127.0.0.1:26657/websocket')
    expect(cometWsUrlOf('https://rpc.example.org/comet/')).toBe('wss://rpc.example.org/comet/websocket')
  })

  it('--comet-url wins; else config.toml [rpc] laddr of the home; else tcp://127.0.0.1:26657', async () => {
    const home = await mkdtemp(join(tmpdir(), 'nodectl-comet-endpoints-'))
    try {
      expect(await resolveCometEndpoints({ home }, {})).toEqual({
        http: 'http://127.0.0.1:26657',
        ws: 'ws://127.0.0.1:26657/websocket',
        home,
      })
      await mkdir(join(home, 'config'))
      await writeFile(join(home, 'config/config.toml'), '[rpc]\nladdr = "tcp://0.0.0.0:36657"\n')
      expect(await resolveCometEndpoints({}, { NODECTL_HOME: home })).toMatchObject({
        http: 'http://127.0.0.1:36657',
        ws: 'ws://127.0.0.1:36657/websocket',
      })
      expect(await resolveCometEndpoints({ home, 'comet-url': 'tcp://10.1.1.1:1' }, {})).toMatchObject({ http: 'http://10.1.1.1:1' })
      await writeFile(join(home, 'config/config.toml'), '[rpc]\nladdr = ""\n')
      expect((await resolveCometEndpoints({ home }, {})).http).toBe('http://127.0.0.1:26657')
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })
})

describe('consensus RPC errors and params', () => {
  it('one line with the code, the message and the data', () => {
    const parse = new JsonRpcClientError(
      -32602,
      'Invalid params',
      'failed to parse query: offset 14: expected "AND" or end of query, found "OR"',
    )
    expect(describeCometError(parse)).toBe(
      'node error -32602: Invalid params: failed to parse query: offset 14: expected "AND" or end of query, found "OR"',
    )
    expect(describeCometError(new JsonRpcClientError(-32601, 'Method not found'))).toBe('node error -32601: Method not found')
    expect(describeCometError(new NodeUnreachableError('http://127.0.0.1:1', 'ECONNREFUSED'))).toBe(
      'cannot reach node at http://127.0.0.1:1 (ECONNREFUSED)',
    )
    expect(describeCometError(new Error('other'))).toBeUndefined()
  })

  it('integers as decimal strings; absent stays absent', () => {
    expect(encodeCometInt(30)).toBe('30')
    expect(JSON.stringify({ page: encodeCometInt(undefined) })).toBe('{}')
  })
})

describe('consensus RPC tables', () => {
  it('the EVM hash comes from ethereum_tx.ethereumTxHash', () => {
    expect(evmHashOf(txResult)).toBe(EVM_HASH)
    expect(evmHashOf({ events: [] })).toBe('')
    const tx: CometTx = { hash: HASH, height: '7', index: 1, tx_result: txResult, tx: '' }
    expect(txRow(tx)).toEqual(['7', 1, HASH, EVM_HASH, 0, '21000'])
  })

  it('raw txs: SHA-256 consensus hash and Keccak-256 EVM hash', () => {
    // SHA-256("abc") and Keccak-256("abc"), the standard test vectors.
    expect(hashesOfRawTx(Buffer.from('abc').toString('base64'))).toEqual({
      consensusHash: 'BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD',
      evmHash: '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
      bytes: 3,
    })
  })

  it('steps, commit flags and attributes', () => {
    expect(parseHeightRoundStep('4/0/2')).toEqual({ height: 4, round: 0, step: 'RoundStepNewRound' })
    expect(parseHeightRoundStep('4/1/6')?.step).toBe('RoundStepPrecommit')
    expect(parseHeightRoundStep('x')).toBeUndefined()
    expect([1, 2, 3].map(blockIdFlagName)).toEqual(['absent', 'commit', 'nil'])
    const bloom = `0x${'0'.repeat(512)}`
    expect(shorten(bloom)).toMatch(/^0x0+… \(514 chars\)$/)
    expect(formatAttributes({ type: 'fee_market', attributes: [{ key: 'base_fee', value: '875000000' }] })).toBe('base_fee=875000000')
  })
})

describe('subscription event lines', () => {
  const header = {
    chain_id: 'c',
    height: '12',
    time: '2026-01-01T00:00:00Z',
    app_hash: 'AA',
    proposer_address: 'PP',
    last_block_id: { hash: '', parts: { total: 0, hash: '' } },
  }
  const msg = (type: string, value: unknown, event?: string): CometEventMessage => ({
    query: 'q',
    data: { type: `tendermint/event/${type}`, value },
    events: { 'tm.event': [event ?? type] },
  })

  it('blocks: height, hash, txs', () => {
    const block = { header, data: { txs: ['AA=='] }, last_commit: null }
    expect(describeEventLine(msg('NewBlock', { block, block_id: { hash: HASH, parts: { total: 1, hash: 'X' } } }))).toBe(
      `NewBlock height=12 hash=${HASH} txs=1 time=2026-01-01T00:00:00Z proposer=PP`,
    )
    expect(describeEventLine(msg('NewBlockHeader', { header }))).toBe(
      'NewBlockHeader height=12 time=2026-01-01T00:00:00Z app_hash=AA proposer=PP',
    )
    expect(
      describeEventLine(msg('NewBlockEvents', { height: '12', num_txs: '0', events: [{ type: 'block_bloom' }, { type: 'fee_market' }] })),
    ).toBe('NewBlockEvents height=12 txs=0 events=block_bloom,fee_market')
  })

  it('txs: consensus and EVM hashes, code and gas; the log only when failed', () => {
    const tx = msg('Tx', { TxResult: { height: '12', tx: 'AA==', result: txResult } })
    tx.events = { 'tm.event': ['Tx'], 'tx.hash': [HASH] }
    expect(describeEventLine(tx)).toBe(`Tx height=12 index=0 hash=${HASH} evm=${EVM_HASH} code=0 gas_used=21000`)
    const failed = msg('Tx', {
      TxResult: { height: '12', index: 2, tx: 'AA==', result: { code: 5, log: 'insufficient funds', gas_used: '0' } },
    })
    expect(describeEventLine(failed)).toBe('Tx height=12 index=2 code=5 gas_used=0 log=insufficient funds')
  })

  it('consensus steps: height/round/step, votes, proposals', () => {
    expect(describeEventLine(msg('RoundState', { height: '12', round: 0, step: 'RoundStepPropose' }, 'NewRoundStep'))).toBe(
      'NewRoundStep height=12 round=0 step=RoundStepPropose',
    )
    expect(describeEventLine(msg('RoundState', { height: '12', round: 1, step: 'RoundStepPrevote' }, 'Polka'))).toBe(
      'Polka height=12 round=1 step=RoundStepPrevote',
    )
    const vote = {
      type: 2,
      height: '12',
      round: 0,
      block_id: { hash: HASH, parts: { total: 1, hash: 'X' } },
      validator_address: 'VV',
      validator_index: 0,
    }
    expect(describeEventLine(msg('Vote', { Vote: vote }))).toBe(`Vote type=precommit height=12 round=0 validator=VV#0 block=${HASH}`)
    expect(describeEventLine(msg('Vote', { Vote: { ...vote, type: 1, block_id: { hash: '', parts: { total: 0, hash: '' } } } }))).toBe(
      'Vote type=prevote height=12 round=0 validator=VV#0 block=nil',
    )
    expect(
      describeEventLine(msg('NewRound', { height: '12', round: 0, step: 'RoundStepNewRound', proposer: { address: 'PP', index: 0 } })),
    ).toBe('NewRound height=12 round=0 step=RoundStepNewRound proposer=PP')
    expect(describeEventLine(msg('ValidatorSetUpdates', { validator_updates: [{ address: 'VV', voting_power: '20' }] }))).toBe(
      'ValidatorSetUpdates validators=VV:20',
    )
  })

  it('the name falls back to data.type', () => {
    expect(eventNameOf({ query: 'q', data: { type: 'tendermint/event/NewBlockHeader', value: {} } })).toBe('NewBlockHeader')
  })
})

describe('subscription dialects', () => {
  it('CometBFT: subscribe by query, pushes are replies to the subscribe id with a query', () => {
    expect(cometSubscriptions.subscribeRequest(["tm.event='Vote'"])).toEqual({ method: 'subscribe', params: { query: "tm.event='Vote'" } })
    expect(cometSubscriptions.keyOf({}, 7)).toBe('7')
    expect(cometSubscriptions.unsubscribeRequest('7', ["tm.event='Vote'"])).toEqual({
      method: 'unsubscribe',
      params: { query: "tm.event='Vote'" },
    })
    expect(cometSubscriptions.pushOf({ jsonrpc: '2.0', id: 7, result: {} })).toBeUndefined()
    const result = { query: "tm.event='Vote'", data: { type: 'tendermint/event/Vote', value: {} }, events: {} }
    expect(cometSubscriptions.pushOf({ jsonrpc: '2.0', id: 7, result })).toEqual({ key: '7', event: result })
    const error = { code: -32000, message: 'Server error', data: 'subscription was canceled (reason: CometBFT exited)' }
    expect(cometSubscriptions.pushOf({ jsonrpc: '2.0', id: 7, error })).toEqual({ key: '7', error })
  })

  it('eth: eth_subscription notifications by subscription id', () => {
    expect(ethSubscriptions.subscribeRequest(['newHeads'])).toEqual({ method: 'eth_subscribe', params: ['newHeads'] })
    expect(ethSubscriptions.keyOf('0xab', 3)).toBe('0xab')
    expect(ethSubscriptions.pushOf({ method: 'eth_subscription', params: { subscription: '0xab', result: { number: '0x1' } } })).toEqual({
      key: '0xab',
      event: { number: '0x1' },
    })
    expect(ethSubscriptions.pushOf({ id: 3, result: '0xab' })).toBeUndefined()
  })
})
