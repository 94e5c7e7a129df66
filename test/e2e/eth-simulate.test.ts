/**
 * eth_simulateV1 on a real dev node, over raw JSON-RPC and through viem's `simulateBlocks` /
 * `simulateCalls`: blocks of calls with state carried across calls and blocks, block and state
 * overrides, the numbering and hash chain of the simulated blocks, ERC-7528 transfer logs, validation,
 * full transactions, and each error code of the specification. Every answer is checked against the
 * execution-apis schema of the method.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getAddress, type Hex } from 'viem'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, type RpcReply, type TestNode } from '../helpers/dev-node.js'
import { hashHeaderJson } from '../helpers/eth-header.js'
import { resultValidator } from '../helpers/execution-apis.js'
import { viemDevClients } from '../helpers/viem-dev-clients.js'
import type { BlockJson, LogJson, TransactionJson } from '../../src/api/eth/format.js'

const validate = resultValidator('eth_simulateV1')
const DEV = devAccounts().map((a) => a.address.toLowerCase() as Hex)
const ETH = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const CONTRACT = '0x' + 'c0'.repeat(20)
const SINK = '0x' + '5a'.repeat(20)
const POOR = '0x' + '77'.repeat(20)
/** Adds 1 to slot 0 and returns the new value. */
const COUNTER = '0x600054600101806000556000526020' + '6000f3'
/** Returns BLOCKHASH(NUMBER - 1), NUMBER, TIMESTAMP, BASEFEE, COINBASE, PREVRANDAO (six words). */
const BLOCK_INFO = '0x4360019003406000524360205242604052486060524160805244' + '60a052' + '60c06000f3'
/** Sends its call value on to SINK, then logs topic 1 with data 42. */
const FORWARDER = `0x60006000600060003473${SINK.slice(2)}5af150602a600052600160206000a100`
/** Reverts with the 32-byte word 42. */
const REVERTER = '0x602a60005260206000fd'
/** Loops until out of gas. */
const LOOP = '0x5b600056'

interface CallJson {
  returnData: Hex
  logs: LogJson[]
  gasUsed: Hex
  maxUsedGas: Hex
  status: Hex
  error?: { code: number; message: string; data?: Hex }
}
type SimBlockJson = BlockJson & { calls: CallJson[] }

async function simulate(url: string, payload: unknown, block: unknown = 'latest'): Promise<RpcReply<SimBlockJson[]>> {
  const reply = await rpc<SimBlockJson[]>(url, 'eth_simulateV1', [payload, block])
  if (reply.result !== undefined) expect(validate(reply.result)).toBeUndefined()
  return reply
}

async function simulated(url: string, payload: unknown, block: unknown = 'latest'): Promise<SimBlockJson[]> {
  const reply = await simulate(url, payload, block)
  if (reply.error) throw new Error(`eth_simulateV1: ${reply.error.code} ${reply.error.message}`)
  return reply.result!
}

async function errorOf(url: string, payload: unknown): Promise<{ code: number; message: string }> {
  const reply = await simulate(url, payload)
  expect(reply.result).toBeUndefined()
  return reply.error!
}

/** The 32-byte words of return data. */
function words(data: Hex): bigint[] {
  return (data.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`))
}

describe('eth_simulateV1', () => {
  let t: TestNode
  let latest: BlockJson
  beforeAll(async () => {
    t = await startTestNode()
    latest = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false])).result!
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('carries state across calls and blocks; numbers, times and hashes chain from the base block', async () => {
    const counter = { [CONTRACT]: { code: COUNTER } }
    const blocks = await simulated(
      t.url,
      {
        blockStateCalls: [{ stateOverrides: counter, calls: [{ to: CONTRACT }, { to: CONTRACT }] }, { calls: [{ to: CONTRACT }] }],
      },
      latest.number,
    )
    expect(blocks.map((b) => b.calls.map((c) => words(c.returnData)[0]))).toEqual([[1n, 2n], [3n]])
    expect(blocks.map((b) => b.calls.map((c) => c.status))).toEqual([['0x1', '0x1'], ['0x1']])
    expect(blocks.map((b) => BigInt(b.number))).toEqual([BigInt(latest.number) + 1n, BigInt(latest.number) + 2n])
    expect(blocks.map((b) => BigInt(b.timestamp))).toEqual([BigInt(latest.timestamp) + 12n, BigInt(latest.timestamp) + 24n])
    expect(blocks[0]!.parentHash).toBe(latest.hash)
    expect(blocks[1]!.parentHash).toBe(blocks[0]!.hash)
    for (const b of blocks) expect(hashHeaderJson(b)).toBe(b.hash)
    expect(blocks[0]!.transactions).toHaveLength(2)
    expect(BigInt(blocks[0]!.gasUsed)).toBe(blocks[0]!.calls.reduce((sum, c) => sum + BigInt(c.gasUsed), 0n))
    // nothing was committed
    expect((await rpc(t.url, 'eth_getCode', [CONTRACT, 'latest'])).result).toBe('0x')
  })

  it('block overrides: the EVM sees them, gaps are filled with empty blocks, BLOCKHASH sees simulated hashes', async () => {
    const base = BigInt(latest.number)
    const randao = '0x' + '11'.repeat(32)
    const blocks = await simulated(
      t.url,
      {
        blockStateCalls: [
          { stateOverrides: { [CONTRACT]: { code: BLOCK_INFO } }, calls: [{ to: CONTRACT }] },
          {
            blockOverrides: {
              number: `0x${(base + 4n).toString(16)}`,
              time: `0x${(BigInt(latest.timestamp) + 1000n).toString(16)}`,
              gasLimit: '0x1c9c380',
              feeRecipient: SINK,
              prevRandao: randao,
              baseFeePerGas: '0x7',
            },
            // a call that pays a fee sees the block's base fee (a fee-less one runs at base fee 0)
            calls: [{ from: DEV[0], to: CONTRACT, gas: '0x186a0', maxFeePerGas: '0x7' }],
          },
        ],
      },
      latest.number,
    )
    expect(blocks.map((b) => BigInt(b.number))).toEqual([base + 1n, base + 2n, base + 3n, base + 4n])
    expect(blocks[1]!.calls).toEqual([])
    expect(BigInt(blocks[2]!.timestamp)).toBe(BigInt(latest.timestamp) + 36n)
    const [hash, number, time, baseFee, coinbase, prevRandao] = words(blocks[3]!.calls[0]!.returnData)
    expect(`0x${hash!.toString(16).padStart(64, '0')}`).toBe(blocks[2]!.hash)
    expect(number).toBe(base + 4n)
    expect(time).toBe(BigInt(latest.timestamp) + 1000n)
    expect(baseFee).toBe(7n)
    expect(`0x${coinbase!.toString(16).padStart(40, '0')}`).toBe(SINK)
    expect(`0x${prevRandao!.toString(16).padStart(64, '0')}`).toBe(randao)
    expect(blocks[3]).toMatchObject({ miner: SINK, gasLimit: '0x1c9c380', baseFeePerGas: '0x7', mixHash: randao })
    // without validation and without an override the base fee is 0 (geth)
    expect(blocks[0]!.baseFeePerGas).toBe('0x0')
  })

  it('state overrides: balance, nonce, state, stateDiff, and a precompile moved elsewhere', async () => {
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: {
            [POOR]: { balance: '0x3e8', nonce: '0x5' },
            [CONTRACT]: { code: COUNTER, state: { ['0x' + '00'.repeat(32)]: '0x' + '00'.repeat(31) + '09' } },
            '0x0000000000000000000000000000000000000004': { movePrecompileToAddress: SINK },
          },
          calls: [
            { from: POOR, to: CONTRACT, value: '0x1' },
            { from: POOR, to: SINK, input: '0xabcdef' },
            { from: POOR, to: '0x0000000000000000000000000000000000000004', input: '0xabcdef' },
          ],
        },
        {
          stateOverrides: { [CONTRACT]: { stateDiff: { ['0x' + '00'.repeat(32)]: '0x' + '00'.repeat(31) + '64' } } },
          calls: [{ from: POOR, to: CONTRACT }],
        },
      ],
      returnFullTransactions: true,
    })
    const [first, second] = blocks
    expect(words(first!.calls[0]!.returnData)[0]).toBe(10n)
    expect(first!.calls[1]!.returnData).toBe('0xabcdef')
    expect(first!.calls[2]!.returnData).toBe('0x')
    expect(words(second!.calls[0]!.returnData)[0]).toBe(101n)
    const txs = [...first!.transactions, ...second!.transactions] as TransactionJson[]
    expect(txs.map((tx) => [tx.from, tx.nonce, tx.type])).toEqual([
      [POOR, '0x5', '0x2'],
      [POOR, '0x6', '0x2'],
      [POOR, '0x7', '0x2'],
      [POOR, '0x8', '0x2'],
    ])
    expect(txs[0]!.blockHash).toBe(first!.hash)
  })

  it('a contract can be the sender (no EIP-3607 check, as geth); its code stays in place', async () => {
    const [block] = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: { [CONTRACT]: { code: COUNTER, balance: '0x64' } },
          calls: [{ from: CONTRACT, to: SINK, value: '0x1' }, { from: CONTRACT, to: CONTRACT }, { to: CONTRACT }],
        },
      ],
    })
    expect(block!.calls.map((c) => c.status)).toEqual(['0x1', '0x1', '0x1'])
    expect(block!.calls.slice(1).map((c) => words(c.returnData)[0])).toEqual([1n, 2n])
  })

  it('traceTransfers: ether moves are ERC-7528 Transfer logs, in order with the contract logs; a failed frame has none', async () => {
    const [block] = await simulated(t.url, {
      traceTransfers: true,
      blockStateCalls: [
        {
          stateOverrides: { [CONTRACT]: { code: FORWARDER }, [POOR]: { code: REVERTER } },
          calls: [
            { from: DEV[0], to: CONTRACT, value: '0x64' },
            { from: DEV[0], to: POOR, value: '0x5' },
          ],
        },
      ],
    })
    const [forward, reverted] = block!.calls
    const pad = (a: string): string => '0x' + a.slice(2).padStart(64, '0')
    expect(forward!.logs.map((l) => [l.address, l.topics, l.data])).toEqual([
      [ETH, [TRANSFER_TOPIC, pad(DEV[0]!), pad(CONTRACT)], pad('0x64')],
      [ETH, [TRANSFER_TOPIC, pad(CONTRACT), pad(SINK)], pad('0x64')],
      [CONTRACT, [pad('0x1')], pad('0x2a')],
    ])
    expect(forward!.logs.map((l) => [l.logIndex, l.transactionIndex, l.blockHash, l.transactionHash])).toEqual(
      [0, 1, 2].map((i) => [`0x${i.toString(16)}`, '0x0', block!.hash, block!.transactions[0]]),
    )
    expect(reverted).toMatchObject({
      status: '0x0',
      returnData: '0x',
      logs: [],
      error: { code: 3, message: 'execution reverted', data: pad('0x2a') },
    })
    // the bloom and receipts commit to the contract's own log only
    expect(block!.logsBloom).not.toBe('0x' + '00'.repeat(256))
  })

  it('a call failing in the EVM is its result: -32015 with the reason', async () => {
    const [block] = await simulated(t.url, {
      blockStateCalls: [{ stateOverrides: { [CONTRACT]: { code: LOOP } }, calls: [{ to: CONTRACT, gas: '0x7530' }, { to: SINK }] }],
    })
    expect(block!.calls[0]).toMatchObject({
      status: '0x0',
      gasUsed: '0x7530',
      error: { code: -32015, message: 'vm execution error: out of gas' },
    })
    expect(block!.calls[1]!.status).toBe('0x1')
  })

  it('validation: nonces, base fee and balance checked as in a real block', async () => {
    const funded = { [POOR]: { balance: '0xde0b6b3a7640000', nonce: '0x5' } }
    const fee = { gas: '0x5208', maxFeePerGas: '0x174876e800', maxPriorityFeePerGas: '0x1' }
    const sim = (call: Record<string, unknown>) =>
      simulate(t.url, { validation: true, blockStateCalls: [{ stateOverrides: funded, calls: [{ from: POOR, to: SINK, ...call }] }] })
    const ok = await sim(fee)
    expect(ok.result![0]!.calls[0]!.status).toBe('0x1')
    expect(BigInt(ok.result![0]!.baseFeePerGas!)).toBeGreaterThan(0n)
    expect((ok.result![0]!.transactions as string[]).length).toBe(1)
    expect((await sim({ ...fee, nonce: '0x6' })).error).toEqual({
      code: -38011,
      message: `err: nonce too high: address ${getAddress(POOR)}, tx: 6 state: 5 (supplied gas 21000)`,
    })
    expect((await sim({ ...fee, nonce: '0x4' })).error).toMatchObject({
      code: -38010,
      message: expect.stringMatching(/^err: nonce too low/),
    })
    expect((await sim({ gas: '0x5208' })).error).toMatchObject({
      code: -38012,
      message: expect.stringMatching(/^err: max fee per gas less than block base fee/),
    })
    expect((await sim({ ...fee, value: '0xde0b6b3a7640000' })).error).toMatchObject({
      code: -38014,
      message: expect.stringMatching(/^err: insufficient funds for gas \* price \+ value/),
    })
    // without validation a penniless sender calls at gas price 0, whatever its nonce
    const free = await simulated(t.url, { blockStateCalls: [{ calls: [{ from: POOR, to: SINK, nonce: '0x9' }] }] })
    expect(free[0]!.calls[0]!.status).toBe('0x1')
  })

  it('the specification error codes of a request refused as a whole', async () => {
    const n = BigInt(latest.number)
    const hex = (v: bigint): string => `0x${v.toString(16)}`
    expect(await errorOf(t.url, { blockStateCalls: [] })).toEqual({ code: -32602, message: 'empty input' })
    expect(
      (
        await errorOf(t.url, {
          blockStateCalls: [{ blockOverrides: { number: hex(n + 5n) } }, { blockOverrides: { number: hex(n + 5n) } }],
        })
      ).code,
    ).toBe(-38020)
    expect((await errorOf(t.url, { blockStateCalls: [{ blockOverrides: { time: hex(BigInt(latest.timestamp)) } }] })).code).toBe(-38021)
    expect(await errorOf(t.url, { blockStateCalls: Array.from({ length: 257 }, () => ({})) })).toEqual({
      code: -38026,
      message: 'too many blocks',
    })
    expect((await errorOf(t.url, { blockStateCalls: [{ blockOverrides: { number: hex(n + 10_000n) } }] })).code).toBe(-38026)
    expect((await errorOf(t.url, { blockStateCalls: [{ calls: [{ to: SINK, gas: '0x5208', input: '0x01' }] }] })).code).toBe(-38013)
    expect(
      await errorOf(t.url, { blockStateCalls: [{ blockOverrides: { gasLimit: '0x5208' }, calls: [{ to: SINK, gas: '0x5209' }] }] }),
    ).toEqual({
      code: -38015,
      message: 'block gas limit reached: remaining: 21000, required: 21001',
    })
    expect((await errorOf(t.url, { blockStateCalls: [{ calls: [{ input: '0x' + '00'.repeat(49_153) }] }] })).code).toBe(-38025)
    const precompile = '0x0000000000000000000000000000000000000001'
    expect(
      (await errorOf(t.url, { blockStateCalls: [{ stateOverrides: { [precompile]: { movePrecompileToAddress: precompile } } }] })).code,
    ).toBe(-38022)
    expect(
      (
        await errorOf(t.url, {
          blockStateCalls: [
            {
              stateOverrides: {
                [precompile]: { movePrecompileToAddress: SINK },
                '0x0000000000000000000000000000000000000002': { movePrecompileToAddress: SINK },
              },
            },
          ],
        })
      ).code,
    ).toBe(-38023)
    expect((await errorOf(t.url, { blockStateCalls: [{ calls: [{ to: SINK, maxPriorityFeePerGas: '0x2' }] }] })).code).toBe(-32602)
    expect((await rpc(t.url, 'eth_simulateV1', [{ blockStateCalls: [{ calls: [{ gas: 'x' }] }] }])).error!.code).toBe(-32602)
    expect(await errorOf(t.url, { blockStateCalls: [{ calls: [{ to: SINK, chainId: '0x1' }] }] })).toEqual({
      code: -32000,
      message: `chainId does not match node's (have=1, want=${BigInt((await rpc<string>(t.url, 'eth_chainId')).result!)})`,
    })
  })

  it('viem simulateBlocks and simulateCalls read the answers', async () => {
    const { client } = viemDevClients(t.url)
    const [block] = await client.simulateBlocks({
      blocks: [
        { calls: [{ account: DEV[1]!, to: SINK as Hex, value: 5n }], stateOverrides: [{ address: CONTRACT as Hex, code: COUNTER as Hex }] },
      ],
      traceTransfers: true,
      validation: false,
    })
    expect(block!.calls[0]!.status).toBe('success')
    expect(block!.calls[0]!.logs!.map((l) => l.address)).toEqual([ETH])
    const { results } = await client.simulateCalls({
      account: DEV[1]!,
      calls: [{ to: CONTRACT as Hex }],
      stateOverrides: [{ address: CONTRACT as Hex, code: COUNTER as Hex }],
    })
    expect(results[0]!.status).toBe('success')
    expect(words(results[0]!.data)[0]).toBe(1n)
  })
})

describe('eth_simulateV1 bounds', () => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode({ flags: { 'json-rpc.evm-timeout': '100ms', 'json-rpc.gas-cap': '0' } })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('the whole request runs within evm-timeout: -32016', async () => {
    const reply = await simulate(t.url, {
      blockStateCalls: [
        {
          blockOverrides: { gasLimit: '0xe8d4a51000' },
          stateOverrides: { [CONTRACT]: { code: LOOP } },
          calls: [{ to: CONTRACT, gas: '0xe8d4a51000' }],
        },
      ],
    })
    expect(reply.error).toEqual({ code: -32016, message: 'execution aborted (timeout = 100ms)' })
  })
})
