/**
 * The node-side JWT check of the private namespaces (docs/decisions.md): without `--dev`, miner_*
 * needs `Authorization: Bearer <JWT>` signed with the home's config/jwt.hex; public methods do not.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonRpcResponse } from '../../src/rpc/client/http-client.js'
import { createJwt, parseJwtSecret } from '../../src/rpc/jwt.js'
import { startTestNode, type TestNode } from '../helpers/dev-node.js'

async function post(
  url: string,
  method: string,
  params: unknown[],
  headers: Record<string, string> = {},
): Promise<{ status: number; json: JsonRpcResponse }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  })
  return { status: res.status, json: (await res.json()) as JsonRpcResponse }
}

describe('private namespaces on a node started without --dev', () => {
  let t: TestNode
  let secret: Uint8Array
  beforeAll(async () => {
    t = await startTestNode({ dev: false, flags: { 'json-rpc.api': 'eth,net,web3,miner' } })
    secret = parseJwtSecret(await readFile(join(t.home, 'config/jwt.hex'), 'utf8'))
  })
  afterAll(() => t.destroy())

  it('refuses miner_* from loopback without a token: HTTP 401, -32001 unauthorized', async () => {
    expect(await post(t.url, 'miner_setGasPrice', ['0x1'])).toEqual({
      status: 401,
      json: { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'unauthorized' } },
    })
  })

  it('serves miner_* with a token signed with the home secret, and the change takes effect', async () => {
    const auth = { authorization: `Bearer ${createJwt(secret)}` }
    expect(await post(t.url, 'miner_setGasPrice', ['0x2540be400'], auth)).toEqual({
      status: 200,
      json: { jsonrpc: '2.0', id: 7, result: true },
    })
    expect(await readFile(join(t.home, 'config/app.toml'), 'utf8')).toMatch(/^minimum-gas-prices = "10000000000anodectl"$/m)
  })

  it('still serves the public namespaces without a token', async () => {
    const reply = await post(t.url, 'eth_chainId', [])
    expect(reply.status).toBe(200)
    expect(reply.json.result).toMatch(/^0x[0-9a-f]+$/)
  })
})
