/**
 * Which web pages may use the EVM JSON-RPC (issue 27, severe 3). As geth: the HTTP server sends no CORS
 * header until `[json-rpc] http-corsdomain` names origins (`--http.corsdomain`), on `--dev` too, so a
 * page of another origin can neither pass a preflight nor read an answer (an unlocked account signs
 * eth_sendTransaction without credentials); the WebSocket server refuses origins `ws-origins` does not
 * list (`--ws.origins`, default the local pages of 127.0.0.1 and localhost); and the HTTP server answers
 * only the host names `http-vhosts` lists (`--http.vhosts`, default localhost) or an IP address, so a
 * page that reaches the node by DNS rebinding, same-origin for the browser, is refused too. Requests are
 * made as a browser makes them: a preflight (OPTIONS with Origin and Access-Control-Request-Method),
 * then the POST.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from '../helpers/raw-http.js'
import { startTestNode, type StartTestNodeOptions, type TestNode } from '../helpers/dev-node.js'
import { RawWsClient } from '../helpers/ws-client.js'

const FOREIGN = 'https://evil.example'
const DAPP = 'http://localhost:3000'

/** The preflight a browser sends before a JSON POST from `origin`. */
const preflight = (url: string, origin: string) =>
  request(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  })

/** The JSON-RPC POST a page of `origin` makes (what a browser sends once the preflight passed, or for a simple request). */
const post = (url: string, origin: string, method: string, params: unknown[] = [], host?: string) =>
  request(url, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', ...(host === undefined ? {} : { host }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })

const DEFAULT_NODES: [string, StartTestNodeOptions][] = [
  ['a dev node', {}],
  ['a non-dev node', { dev: false }],
]

describe.each(DEFAULT_NODES)('browser origins, by default, on %s', (_name, options) => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode(options)
  })
  afterAll(() => t.destroy())

  it('gives a foreign page no CORS header: its preflight fails and its answers stay unreadable', async () => {
    const pre = await preflight(t.url, FOREIGN)
    expect(pre.headers['access-control-allow-origin']).toBeUndefined()
    expect(pre.headers['access-control-allow-methods']).toBeUndefined()
    for (const method of ['eth_accounts', 'personal_listAccounts']) {
      const res = await post(t.url, FOREIGN, method)
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
    }
  })

  it('gives a local page none either (no origin is named)', async () => {
    expect((await preflight(t.url, DAPP)).headers['access-control-allow-origin']).toBeUndefined()
    expect((await post(t.url, DAPP, 'eth_chainId')).headers['access-control-allow-origin']).toBeUndefined()
  })

  it('answers a rebound page (Host: its own name) with 403, a request to localhost or an IP as usual', async () => {
    const port = new URL(t.url).port
    const rebound = await request(t.url, {
      method: 'POST',
      headers: { host: `evil.example:${port}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_accounts', params: [] }),
    })
    expect([rebound.status, rebound.body]).toEqual([403, 'invalid host specified\n'])
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const res = await post(t.url, DAPP, 'eth_chainId', [], host)
      expect([host, res.status, JSON.parse(res.body).result]).toEqual([host, 200, '0x7a69'])
    }
  })

  it('refuses a WebSocket from a foreign or opaque (null) origin, accepts a local page and software sending no Origin', async () => {
    await expect(RawWsClient.connect(t.addresses.jsonRpcWs!, { headers: { Origin: FOREIGN } })).rejects.toThrow('unexpected response 403')
    // What a sandboxed frame, a file:// page or a data: URL sends.
    await expect(RawWsClient.connect(t.addresses.jsonRpcWs!, { headers: { Origin: 'null' } })).rejects.toThrow('unexpected response 403')
    const local = await RawWsClient.connect(t.addresses.jsonRpcWs!, { headers: { Origin: DAPP } })
    expect(await local.call('eth_chainId')).toBe('0x7a69')
    await local.close()
    const none = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    expect(await none.call('eth_chainId')).toBe('0x7a69')
    await none.close()
  })
})

describe('browser origins named in http-corsdomain, host names in http-vhosts', () => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode({
      flags: { 'json-rpc.http-corsdomain': `${DAPP}, https://*.dapp.example`, 'json-rpc.http-vhosts': 'node.example' },
    })
  })
  afterAll(() => t.destroy())

  it('lets those pages through the preflight and read answers, geth-style (POST and GET, any header, 600 s)', async () => {
    const pre = await preflight(t.url, DAPP)
    expect(pre.status).toBe(204)
    expect(pre.headers).toMatchObject({
      'access-control-allow-origin': DAPP,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '600',
    })
    const res = await post(t.url, DAPP, 'eth_chainId')
    expect(res.headers['access-control-allow-origin']).toBe(DAPP)
    expect(JSON.parse(res.body)).toMatchObject({ result: '0x7a69' })
    expect((await post(t.url, 'https://app.dapp.example', 'eth_chainId')).headers['access-control-allow-origin']).toBe(
      'https://app.dapp.example',
    )
  })

  it('answers the listed host name only (localhost is no longer listed)', async () => {
    const port = new URL(t.url).port
    expect((await post(t.url, DAPP, 'eth_chainId', [], `NODE.example:${port}`)).status).toBe(200)
    expect((await post(t.url, DAPP, 'eth_chainId', [], `localhost:${port}`)).status).toBe(403)
  })

  it('still gives other pages nothing', async () => {
    expect((await preflight(t.url, FOREIGN)).headers['access-control-allow-origin']).toBeUndefined()
    expect((await post(t.url, FOREIGN, 'eth_accounts')).headers['access-control-allow-origin']).toBeUndefined()
  })
})
