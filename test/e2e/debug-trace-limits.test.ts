/**
 * What one debug_trace* request may build (issue 27 #6), on a dev node started with a small
 * `--json-rpc.trace-response-max-size`: a struct-logger trace of an endless loop stops at the cap
 * with -32003 naming the setting (debug_traceCall, debug_traceTransaction, and a block trace as a
 * whole rather than as one failed entry), the cap counts other tracers' results too, a trace narrowed
 * by the request's own `limit` is served, and with the cap off the same loop answers in full, in the
 * same bytes as before. Sizes are asserted, never times or memory (measured by
 * scripts/measure-trace-memory.mjs instead).
 */
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StructLoggerResult } from '../../src/evm/tracing/struct-logger.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { ReceiptJson } from '../../src/api/eth/format.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'

/** The cap these nodes run with (bytes): a few hundred struct-log entries with their stacks. */
const CAP = 50_000
/** JUMPDEST PUSH1 0 JUMP: init code that loops until its gas is gone (3 steps per 12 gas). */
const ENDLESS_LOOP = '0x5b600056'
/** Gas of the looping transaction and calls: about 60,000 steps, megabytes of struct log. */
const LOOP_GAS = 300_000n
const GWEI = 10n ** 9n
const [A0] = devAccounts(1).map((a) => new Wallet(a.privateKey))
/** A JavaScript tracer whose result grows with every step (an op name and pc per step). */
const GROWING_JS_TRACER = `{data: [], step: function(log) { this.data.push(log.op.toString() + '@' + log.getPC()) }, fault: function() {}, result: function() { return this.data }}`

/** The error every refusal carries: geth's -32003 code, and the setting to raise. */
const tooLarge = {
  code: -32003,
  message:
    `response too large: the trace exceeds ${CAP} bytes ([json-rpc] trace-response-max-size, --json-rpc.trace-response-max-size); ` +
    'trace fewer steps (limit, disableStack, disableStorage) or raise the setting',
}

/** Bytes of the JSON-RPC answer to one call, and the answer parsed. */
async function rawCall(url: string, method: string, params: unknown[]): Promise<{ bytes: number; reply: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const text = await res.text()
  return { bytes: Buffer.byteLength(text), reply: JSON.parse(text) as Record<string, unknown> }
}

const loopCall = { from: A0!.address, data: ENDLESS_LOOP, gas: `0x${LOOP_GAS.toString(16)}` }

describe(`a dev node with trace-response-max-size = ${CAP}`, () => {
  let t: TestNode
  let loopTx = ''
  let loopBlock = ''

  beforeAll(async () => {
    t = await startTestNode({ flags: { 'json-rpc.trace-response-max-size': String(CAP) } })
    // A contract creation that loops until out of gas: committed (failed), and expensive to trace.
    const raw = await A0!.signTransaction({
      type: 2,
      chainId: 31337n,
      nonce: 0,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
      gasLimit: LOOP_GAS,
      data: ENDLESS_LOOP,
    })
    loopTx = (await rpc<string>(t.url, 'eth_sendRawTransaction', [raw])).result!
    const receipt = await waitFor(async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [loopTx])).result, 30_000)
    expect(receipt.status).toBe('0x0')
    loopBlock = receipt.blockNumber
  }, 60_000)
  afterAll(async () => {
    await t?.destroy()
  })

  it('refuses a struct-logger trace past the cap with -32003 naming the setting (debug_traceCall, debug_traceTransaction)', async () => {
    expect((await rpc(t.url, 'debug_traceCall', [loopCall, 'latest'])).error).toEqual(tooLarge)
    expect((await rpc(t.url, 'debug_traceTransaction', [loopTx])).error).toEqual(tooLarge)
    // memory and return data make entries larger, never the cap
    expect((await rpc(t.url, 'debug_traceCall', [loopCall, 'latest', { enableMemory: true, enableReturnData: true }])).error).toEqual(
      tooLarge,
    )
  })

  it('fails a block trace as a whole once its answer passes the cap, not as one `{txHash, error}` entry', async () => {
    expect((await rpc(t.url, 'debug_traceBlockByNumber', [loopBlock])).error).toEqual(tooLarge)
    const block = (await rpc<{ hash: string }>(t.url, 'eth_getBlockByNumber', [loopBlock, false])).result!
    expect((await rpc(t.url, 'debug_traceBlockByHash', [block.hash])).error).toEqual(tooLarge)
    // a tracer with a small answer traces the same block
    const calls = await rpc<{ txHash: string; result: { type: string; error: string } }[]>(t.url, 'debug_traceBlockByNumber', [
      loopBlock,
      { tracer: 'callTracer' },
    ])
    expect(calls.result).toEqual([{ txHash: loopTx, result: expect.objectContaining({ type: 'CREATE', error: 'out of gas' }) }])
  })

  it('counts the results of other tracers too (a JavaScript tracer that collects every step)', async () => {
    const config = { tracer: GROWING_JS_TRACER, timeout: '60s' }
    expect((await rpc(t.url, 'debug_traceCall', [loopCall, 'latest', config])).error).toEqual(tooLarge)
  })

  it("serves the same loop narrowed by the request's own limit, within the cap", async () => {
    const { bytes, reply } = await rawCall(t.url, 'debug_traceCall', [loopCall, 'latest', { limit: 200 }])
    const result = reply.result as StructLoggerResult
    expect(reply.error).toBeUndefined()
    expect(result.structLogs).toHaveLength(200)
    expect(result.structLogs.slice(0, 3).map((e) => e.op)).toEqual(['JUMPDEST', 'PUSH1', 'JUMP'])
    expect(result).toMatchObject({ failed: true, returnValue: '0x' })
    expect(bytes).toBeLessThan(CAP)
  })
})

describe('a dev node with trace-response-max-size = 0 (no cap)', () => {
  let t: TestNode

  beforeAll(async () => {
    t = await startTestNode({ flags: { 'json-rpc.trace-response-max-size': '0' } })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('answers the whole loop: every step, in geth’s shape, as large as it is', async () => {
    const { bytes, reply } = await rawCall(t.url, 'debug_traceCall', [loopCall, 'latest'])
    expect(reply.error).toBeUndefined()
    const result = reply.result as StructLoggerResult
    const steps = result.structLogs.length
    // 3 steps per 12 gas after the creation's intrinsic gas; the last step is the one out of gas
    expect(steps).toBeGreaterThan(50_000)
    expect(result.structLogs.at(-1)!.error).toBe('out of gas')
    expect(result.structLogs.filter((e) => e.error !== undefined)).toHaveLength(1)
    expect(result.structLogs[1]).toEqual({ pc: 1, op: 'PUSH1', gas: result.structLogs[0]!.gas - 1, gasCost: 3, depth: 1, stack: [] })
    expect(result.structLogs[2]!.stack).toEqual(['0x0'])
    expect(bytes).toBeGreaterThan(CAP * 50)
  }, 60_000)
})
