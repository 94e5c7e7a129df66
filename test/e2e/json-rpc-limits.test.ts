/**
 * The `[json-rpc]` limits of app.toml, each set on a real dev node (by flag, or in app.toml) and
 * observed through its effect. Covered elsewhere: filter-cap (filters.test.ts, by flag); the default
 * http-body-limit and ws-origins (bad-input.test.ts, ws-subscriptions.test.ts). txfee-cap is not
 * tested here (its enforcement is being written).
 *   node 1, flags: gas-cap, feehistory-cap, logs-cap, allow-unprotected-txs, batch-request-limit,
 *                  batch-response-max-size, http-body-limit, ws-origins, api.enabled-unsafe-cors;
 *   node 2, app.toml: block-range-cap, evm-timeout, gas-cap = 0 (no cap), http-timeout; and the
 *                  defaults the first node changes (CORS, unprotected transactions);
 *   node 3, flags: max-open-connections, http-idle-timeout, evm-timeout = "0s" (no limit).
 */
import { readFile, writeFile, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { testNodeSettings } from '../../src/node/test-settings.js'
import { initDevHome } from '../../src/config/init-home.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { BlockJson, ReceiptJson, TransactionJson } from '../../src/api/eth/format.js'
import type { FeeHistoryJson } from '../../src/api/eth/fee-history.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { keepAliveRequest, openSocket, request, rpcOnce } from '../helpers/raw-http.js'
import { RawWsClient } from '../helpers/ws-client.js'

const [A0, A1, A2] = devAccounts(3).map((a) => new Wallet(a.privateKey))
const GWEI = 10n ** 9n
/** Creation code `GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`: eth_call returns the gas left. */
const GAS_PROBE = '0x5a60005260206000f3'
/** Creation code `JUMPDEST PUSH1 0 JUMP`: loops until out of gas or aborted. */
const LOOP = '0x5b600056'
/** eth_call/eth_estimateGas intrinsic gas of a creation (21000 + 32000), before calldata. */
const CREATE_GAS = 53_000n

const CHAIN_ID = 31337n
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params })

/** Waits for a transaction's receipt. */
async function mined(url: string, hash: string): Promise<{ status: string; blockNumber: string }> {
  return waitFor(async () => (await rpc<ReceiptJson>(url, 'eth_getTransactionReceipt', [hash])).result, 20_000, `receipt of ${hash}`)
}

/** A CORS preflight as a browser sends it before a POST with an Authorization header. */
const preflight = (url: string) =>
  request(url, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://dapp.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  })

describe('json-rpc limits set by flags (node 1)', () => {
  let t: TestNode
  const BODY_LIMIT = 20_000

  beforeAll(async () => {
    t = await startTestNode({
      flags: {
        'json-rpc.gas-cap': '60000',
        'json-rpc.feehistory-cap': '2',
        'json-rpc.logs-cap': '1',
        'json-rpc.allow-unprotected-txs': true,
        'json-rpc.batch-request-limit': '3',
        'json-rpc.batch-response-max-size': '300',
        'json-rpc.http-body-limit': String(BODY_LIMIT),
        'json-rpc.ws-origins': 'https://app.example',
        'api.enabled-unsafe-cors': true,
      },
    })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('gas-cap: eth_call runs with at most the cap, eth_estimateGas searches below it', async () => {
    const left = BigInt((await rpc<string>(t.url, 'eth_call', [{ data: GAS_PROBE, gas: '0xf4240' }])).result!)
    expect(left).toBeGreaterThan(0n)
    expect(left).toBeLessThan(60_000n - CREATE_GAS)
    expect((await rpc(t.url, 'eth_estimateGas', [{ data: LOOP }])).error).toEqual({
      code: -32000,
      message: 'gas required exceeds allowance (60000)',
    })
  })

  it('feehistory-cap: eth_feeHistory covers at most that many blocks', async () => {
    await waitFor(async () => Number((await rpc(t.url, 'eth_blockNumber')).result) >= 3, 20_000, 'three blocks')
    const history = (await rpc<FeeHistoryJson>(t.url, 'eth_feeHistory', ['0x64', 'latest', []])).result!
    expect(history.gasUsedRatio).toHaveLength(2)
    expect(history.baseFeePerGas).toHaveLength(3)
  })

  it('logs-cap: eth_getLogs and eth_getFilterLogs refuse more results than the cap', async () => {
    const { Token } = compileContracts('Token.sol')
    const deploy = Token!.bytecode + new Interface(Token!.abi as never).encodeDeploy([1000n]).slice(2)
    const nonce = Number((await rpc(t.url, 'eth_getTransactionCount', [A0!.address, 'pending'])).result)
    for (const n of [nonce, nonce + 1]) {
      const raw = await A0!.signTransaction({
        type: 2,
        chainId: CHAIN_ID,
        nonce: n,
        gasLimit: 1_000_000n,
        maxFeePerGas: 100n * GWEI,
        maxPriorityFeePerGas: GWEI,
        data: deploy,
      })
      const receipt = await mined(t.url, (await rpc<string>(t.url, 'eth_sendRawTransaction', [raw])).result!)
      expect(receipt.status).toBe('0x1')
    }
    expect((await rpc(t.url, 'eth_getLogs', [{ fromBlock: '0x0' }])).error).toEqual({
      code: -32000,
      message: 'query returned more than 1 results',
    })
    const filter = (await rpc(t.url, 'eth_newFilter', [{ fromBlock: '0x0' }])).result
    expect((await rpc(t.url, 'eth_getFilterLogs', [filter])).error).toEqual({ code: -32000, message: 'query returned more than 1 results' })
  })

  it('allow-unprotected-txs: a transaction without EIP-155 replay protection is accepted and mined', async () => {
    const raw = await A1!.signTransaction({ type: 0, nonce: 0, gasLimit: 21_000n, gasPrice: 10n * GWEI, to: A2!.address, value: 1n })
    const sent = await rpc<string>(t.url, 'eth_sendRawTransaction', [raw])
    expect(sent.error).toBeUndefined()
    expect((await mined(t.url, sent.result!)).status).toBe('0x1')
    expect((await rpc<TransactionJson>(t.url, 'eth_getTransactionByHash', [sent.result])).result!.chainId).toBeUndefined()
  })

  it('batch-request-limit: a larger batch is one -32600 batch too large', async () => {
    const four = await request(t.url, json([1, 2, 3, 4].map((id) => call(id, 'eth_chainId'))))
    expect(JSON.parse(four.body)).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'batch too large' } }])
    const three = await request(t.url, json([1, 2, 3].map((id) => call(id, 'eth_chainId'))))
    expect(JSON.parse(three.body)).toEqual([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, result: '0x7a69' })))
  })

  it('batch-response-max-size: once passed, the remaining calls get -32003 response too large', async () => {
    const reply = JSON.parse((await request(t.url, json([1, 2, 3].map((id) => call(id, 'eth_getBlockByNumber', ['0x1', false]))))).body)
    expect(reply[0].result.number).toBe('0x1')
    expect(reply.slice(1)).toEqual([2, 3].map((id) => ({ jsonrpc: '2.0', id, error: { code: -32003, message: 'response too large' } })))
  })

  it('http-body-limit: a larger HTTP body is 413, a larger WebSocket message closes with 1009', async () => {
    const payload = (bytes: number) => JSON.stringify(call(1, 'web3_sha3', ['0x' + '00'.repeat(bytes)]))
    const small = await request(t.url, { headers: { 'content-type': 'application/json' }, body: payload(BODY_LIMIT / 4) })
    expect(small.status).toBe(200)
    const big = payload(BODY_LIMIT / 2 + 1)
    const refused = await request(t.url, { headers: { 'content-type': 'application/json' }, body: big })
    expect(refused.status).toBe(413)
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `content length too large (${Buffer.byteLength(big)}>${BODY_LIMIT})` },
    })
    const ws = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    expect((await ws.request('web3_sha3', ['0x' + '00'.repeat(BODY_LIMIT / 4)])).result).toMatch(/^0x[0-9a-f]{64}$/)
    ws.sendText(big)
    expect((await ws.waitForClose()).code).toBe(1009)
  })

  it('ws-origins: only the listed origin (and clients sending none) may open a WebSocket', async () => {
    const listed = await RawWsClient.connect(t.addresses.jsonRpcWs!, { headers: { Origin: 'https://app.example' } })
    expect(await listed.call('eth_chainId')).toBe('0x7a69')
    await listed.close()
    // localhost is in the default list, not in this one.
    await expect(RawWsClient.connect(t.addresses.jsonRpcWs!, { headers: { Origin: 'http://localhost:3000' } })).rejects.toThrow(
      'unexpected response 403',
    )
    const none = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    expect(await none.call('net_version')).toBe('31337')
    await none.close()
  })

  it('api.enabled-unsafe-cors: a preflight for any header is allowed', async () => {
    const pre = await preflight(t.url)
    expect(pre.status).toBe(204)
    expect(pre.headers['access-control-allow-origin']).toBe('*')
    expect(pre.headers['access-control-allow-headers']).toBe('authorization, content-type')
  })
})

/** Sets `[json-rpc]` keys in a home's app.toml (values as TOML text). */
async function setAppToml(home: string, values: Record<string, string>): Promise<void> {
  const path = join(home, 'config', 'app.toml')
  let text = await readFile(path, 'utf8')
  for (const [key, value] of Object.entries(values)) {
    const line = new RegExp(`^${key} = .*$`, 'm')
    if (!line.test(text)) throw new Error(`app.toml has no ${key} line`)
    text = text.replace(line, `${key} = ${value}`)
  }
  await writeFile(path, text)
}

describe('json-rpc limits set in app.toml (node 2)', () => {
  let t: TestNode

  beforeAll(async () => {
    const home = await mkdtemp(join(tmpdir(), 'nodectl-test-'))
    await initDevHome(home, { settings: testNodeSettings() })
    await setAppToml(home, { 'block-range-cap': '2', 'evm-timeout': '"100ms"', 'gas-cap': '0', 'http-timeout': '"300ms"' })
    t = await startTestNode({ home })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('block-range-cap: eth_getLogs over more blocks is refused with the geth/Evmos message', async () => {
    await waitFor(async () => Number((await rpc(t.url, 'eth_blockNumber')).result) >= 4, 20_000, 'four blocks')
    expect((await rpc(t.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4' }])).error).toEqual({
      code: -32000,
      message: 'maximum [from, to] blocks distance: 2',
    })
    expect((await rpc(t.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }])).result).toEqual([])
  })

  it('evm-timeout: a call running past it is aborted with geth message', async () => {
    expect((await rpc(t.url, 'eth_call', [{ data: LOOP, gas: '0xe8d4a51000' }])).error).toEqual({
      code: -32000,
      message: 'execution aborted (timeout = 100ms)',
    })
    await waitFor(async () => Number((await rpc(t.url, 'eth_blockNumber')).result) >= 1, 20_000, 'block 1')
  })

  it('gas-cap = 0: no cap, a call without gas gets the block gas limit, estimates search up to it', async () => {
    const block = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false])).result!
    const left = BigInt((await rpc<string>(t.url, 'eth_call', [{ data: GAS_PROBE }])).result!)
    expect(left).toBeGreaterThan(BigInt(block.gasLimit) - CREATE_GAS - 1_000n)
    expect(left).toBeLessThan(BigInt(block.gasLimit))
    expect(BigInt((await rpc<string>(t.url, 'eth_estimateGas', [{ data: GAS_PROBE }])).result!)).toBeGreaterThan(CREATE_GAS)
  })

  it('http-timeout: a client that stops in the middle of its request is disconnected', async () => {
    const raw = await openSocket(t.url)
    raw.socket.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n')
    await raw.closed
    expect(raw.socket.destroyed).toBe(true)
  }, 10_000)

  it('defaults: no CORS (a preflight is an OPTIONS like any other: 405); unprotected transactions are refused', async () => {
    const pre = await preflight(t.url)
    expect(pre.status).toBe(405)
    expect(pre.headers['access-control-allow-origin']).toBeUndefined()
    const raw = await A1!.signTransaction({ type: 0, nonce: 0, gasLimit: 21_000n, gasPrice: 10n * GWEI, to: A2!.address, value: 1n })
    expect((await rpc(t.url, 'eth_sendRawTransaction', [raw])).error).toEqual({
      code: -32000,
      message: 'only replay-protected (EIP-155) transactions allowed over RPC',
    })
  })
})

describe('json-rpc limits set by flags (node 3): connections', () => {
  let t: TestNode

  beforeAll(async () => {
    t = await startTestNode({
      flags: { 'json-rpc.max-open-connections': '1', 'json-rpc.http-idle-timeout': '200ms', 'json-rpc.evm-timeout': '0s' },
    })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('http-idle-timeout: the server closes a keep-alive connection left idle', async () => {
    const raw = await openSocket(t.url)
    raw.socket.write(keepAliveRequest(JSON.stringify(call(1, 'eth_chainId'))))
    await raw.closed
    expect(raw.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*"result":"0x7a69"/)
  }, 10_000)

  it('max-open-connections: a second connection waits until the first one is closed', async () => {
    const events: string[] = []
    const holder = await openSocket(t.url)
    holder.socket.write(keepAliveRequest(JSON.stringify(call(1, 'eth_chainId'))))
    await waitFor(() => holder.received().includes('0x7a69'), 10_000, 'the first reply')
    // The holder stays open, idle, until http-idle-timeout closes it; only then is the second served.
    void holder.closed.then(() => events.push('first connection closed'))
    const second = await rpcOnce(t.url, 'eth_blockNumber')
    events.push('second answered')
    expect(Number(second.result)).toBeGreaterThan(0)
    expect(events).toEqual(['first connection closed', 'second answered'])
  }, 10_000)

  it('evm-timeout = "0s": no time limit, a long call runs until it is out of gas', async () => {
    const reply = await rpcOnce(t.url, 'eth_call', [{ data: LOOP, gas: '0x30000' }])
    expect(reply.error).toEqual({ code: -32000, message: 'out of gas' })
  })
})
