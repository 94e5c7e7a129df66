/**
 * Every method the node serves (enumerated from the method tables, all namespaces enabled) gets wrong
 * types for each parameter, its required parameters missing, and one parameter too many; each time
 * the reply is -32602 with geth's message (`invalid argument N: ...`, `missing value for required
 * argument N`, `too many arguments, want at most N`). Values geth accepts (JSON null as a Go zero
 * value, optional parameters) must not be refused. The cases per codec are in
 * test/helpers/param-cases.ts; eth_subscribe / eth_unsubscribe read their own arguments and are
 * checked over WebSocket. The node keeps serving afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { address } from '../../src/rpc/codecs.js'
import { namespaceOf, type MethodDef } from '../../src/rpc/method-table.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { PARAM_KINDS, SELF_DECODED, listAllMethods, type ParamKind } from '../helpers/param-cases.js'
import { RawWsClient } from '../helpers/ws-client.js'

const NAMESPACES = ['web3', 'eth', 'net', 'txpool', 'miner', 'personal']
/** Methods whose accepted values would change the node: only their refusals are sent. */
const CHANGES_STATE = new Set([
  'miner_setGasPrice',
  'miner_setEtherbase',
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'personal_newAccount',
  'personal_importRawKey',
  'personal_lockAccount',
  'personal_sendTransaction',
])
const INVALID_PARAMS = -32602
const DEV_ADDRESS = devAccounts(1)[0]!.address.toLowerCase()

const methods = listAllMethods()
const tableDecoded = methods.filter((m) => !m.params.some((p) => p.codec === SELF_DECODED))
const selfDecoded = methods.filter((m) => m.params.some((p) => p.codec === SELF_DECODED))

function kindOf(def: MethodDef, index: number): ParamKind {
  const kind = PARAM_KINDS.get(def.params[index]!.codec)
  if (kind === undefined)
    throw new Error(`no bad-input cases for ${def.name} argument ${index}: add its codec to test/helpers/param-cases.ts`)
  return kind
}

/** Valid values for every position (a real dev account where an address is expected). */
function validArgs(def: MethodDef): unknown[] {
  return def.params.map((p, i) => (p.codec === address ? DEV_ADDRESS : kindOf(def, i).valid))
}

describe('every method refuses bad params with -32602, as geth', () => {
  let t: TestNode

  beforeAll(async () => {
    t = await startTestNode({ flags: { 'json-rpc.api': NAMESPACES.join(',') } })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('enumerates a non-trivial set of methods from every enabled namespace', () => {
    expect(methods.length).toBeGreaterThan(50)
    expect(new Set(methods.map((m) => namespaceOf(m.name)))).toEqual(new Set(NAMESPACES))
    expect(methods.map((m) => m.name)).toEqual(
      expect.arrayContaining(['eth_getBalance', 'eth_call', 'eth_getLogs', 'txpool_contentFrom', 'miner_setGasPrice', 'web3_sha3']),
    )
    expect(selfDecoded.map((m) => m.name).sort()).toEqual(['eth_subscribe', 'eth_unsubscribe'])
  })

  it.each(tableDecoded.map((def) => [def.name, def] as const))('%s', async (name, def) => {
    const expectInvalid = async (params: unknown, message: string): Promise<void> => {
      const res = await fetch(t.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: name, params }),
      })
      const reply = (await res.json()) as { error?: unknown }
      expect(reply.error, `${name} ${JSON.stringify(params)}`).toEqual({ code: INVALID_PARAMS, message })
    }
    const valid = validArgs(def)
    const n = def.params.length
    await expectInvalid([...valid, 1], `too many arguments, want at most ${n}`)
    await expectInvalid({ a: 1 }, 'non-array args')
    for (let i = 0; i < n; i++) {
      const kind = kindOf(def, i)
      if (def.params[i]!.required) await expectInvalid(valid.slice(0, i), `missing value for required argument ${i}`)
      for (const bad of kind.bad) {
        if (bad.value === null && !def.params[i]!.required) continue // null = absent for an optional parameter
        await expectInvalid([...valid.slice(0, i), bad.value], `invalid argument ${i}: ${bad.reason}`)
      }
      if (CHANGES_STATE.has(name)) continue
      const accepted = def.params[i]!.required ? kind.accepts : [null, ...kind.accepts]
      for (const value of accepted) {
        const params = [...valid.slice(0, i), value, ...valid.slice(i + 1)]
        const reply = await rpc(t.url, name, params)
        expect(reply.error?.code, `${name} ${JSON.stringify(params)}: ${reply.error?.message}`).not.toBe(INVALID_PARAMS)
      }
    }
  })

  it('decodes storage keys in the handler, as geth: a bad key is -32000', async () => {
    expect((await rpc(t.url, 'eth_getStorageAt', [DEV_ADDRESS, '0xzz'])).error).toEqual({
      code: -32000,
      message: 'unable to decode storage key: hex string invalid',
    })
    expect((await rpc(t.url, 'eth_getStorageAt', [DEV_ADDRESS, '0x' + '11'.repeat(33)])).error).toEqual({
      code: -32000,
      message: 'unable to decode storage key: hex string too long, want at most 32 bytes',
    })
    expect((await rpc(t.url, 'eth_getProof', [DEV_ADDRESS, ['0x1', 'zz']])).error).toEqual({ code: -32000, message: 'hex string invalid' })
    expect((await rpc(t.url, 'eth_getStorageAt', [DEV_ADDRESS, '1'])).result).toBe('0x' + '00'.repeat(32))
  })

  it('eth_subscribe / eth_unsubscribe over HTTP: notifications not supported', async () => {
    expect((await rpc(t.url, 'eth_subscribe', ['newHeads'])).error).toEqual({ code: -32000, message: 'notifications not supported' })
    expect((await rpc(t.url, 'eth_unsubscribe', ['0x1'])).error).toEqual({ code: -32000, message: 'notifications not supported' })
    // The transport is checked before the params, as geth does.
    expect((await rpc(t.url, 'eth_subscribe', ['newHeads', {}, 3])).error).toEqual({ code: -32000, message: 'notifications not supported' })
    expect((await rpc(t.url, 'eth_unsubscribe', [1, 2])).error).toEqual({ code: -32000, message: 'notifications not supported' })
  })

  it('eth_subscribe / eth_unsubscribe over WebSocket: geth counts the subscription name as argument 0', async () => {
    const ws = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    try {
      const expectInvalid = async (method: string, params: unknown[], message: string): Promise<void> => {
        expect((await ws.request(method, params)).error, `${method} ${JSON.stringify(params)}`).toEqual({ code: INVALID_PARAMS, message })
      }
      for (const name of [[], [1], [{}], [null], [['newHeads']]])
        await expectInvalid('eth_subscribe', name, 'expected subscription name as first argument')
      await expectInvalid('eth_subscribe', ['logs'], 'missing value for required argument 1')
      await expectInvalid(
        'eth_subscribe',
        ['logs', 1],
        'invalid argument 1: json: cannot unmarshal number into Go value of type filters.input',
      )
      await expectInvalid(
        'eth_subscribe',
        ['logs', { address: '0x12' }],
        'invalid argument 1: invalid address: hex has invalid length 1 after decoding; expected 20 for address',
      )
      await expectInvalid(
        'eth_subscribe',
        ['newPendingTransactions', 'yes'],
        'invalid argument 1: json: cannot unmarshal string into Go value of type bool',
      )
      await expectInvalid('eth_subscribe', ['syncing', {}], 'too many arguments, want at most 1')
      await expectInvalid('eth_subscribe', ['logs', {}, 1], 'too many arguments, want at most 2')
      expect((await ws.request('eth_subscribe', ['newBlocks'])).error).toEqual({
        code: -32601,
        message: 'no "newBlocks" subscription in eth namespace',
      })
      await expectInvalid('eth_unsubscribe', [], 'missing value for required argument 0')
      await expectInvalid('eth_unsubscribe', [1], 'invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID')
      await expectInvalid('eth_unsubscribe', ['0x1', 1], 'too many arguments, want at most 1')
    } finally {
      await ws.close()
    }
  })

  it('keeps serving after the whole table', async () => {
    await waitFor(async () => Number((await rpc(t.url, 'eth_blockNumber')).result) >= 1, 20_000, 'block 1')
    expect((await rpc(t.url, 'eth_chainId')).result).toBe('0x7a69')
  })
})
