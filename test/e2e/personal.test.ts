/**
 * The personal namespace on real nodes over raw JSON-RPC: every method, the spec's unlock state table
 * driven by an injected clock (no sleeps), passphrase-per-call signing that unlocks nothing, ecRecover
 * round trips with eth_sign and ethers, the key store shared with an offline writer, authorisation
 * (JWT) accepted and refused over HTTP and WebSocket, and unlocking refused to non-loopback callers
 * unless allow-insecure-unlock (over the machine's real non-loopback address when it has one).
 */
import { readFile, readdir } from 'node:fs/promises'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Wallet, verifyMessage } from 'ethers'
import { mayUnlock } from '../../src/api/eth/unlock-policy.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { LIGHT_SCRYPT } from '../../src/keystore/key-file.js'
import { KeyStore } from '../../src/keystore/key-store.js'
import { createJwt, parseJwtSecret } from '../../src/rpc/jwt.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { FakeClock } from '../helpers/fake-clock.js'
import { RawWsClient } from '../helpers/ws-client.js'
import type { WalletJson } from '../../src/api/eth/personal.js'

const DEV = devAccounts().map((a) => a.address.toLowerCase())
const SINK = '0x' + '5a'.repeat(20)
const AUTH_NEEDED = { code: -32000, message: 'authentication needed: password or unlock' }
const WRONG_PASSPHRASE = { code: -32000, message: 'could not decrypt key with given password' }
const FORBIDDEN = { code: -32000, message: 'account unlock with HTTP access is forbidden' }

/** The result of a call, of the shape `T` the caller expects; throws on an error reply. */
async function call<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const reply = await rpc(url, method, params)
  if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`)
  return reply.result as T
}

/** A JSON-RPC reply whose result has the shape `R`. */
interface Reply<R> {
  jsonrpc: string
  id: number
  result?: R
  error?: { code: number; message: string }
}

async function post<R>(
  url: string,
  method: string,
  params: unknown[],
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Reply<R> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return { status: res.status, json: (await res.json()) as Reply<R> }
}

/** The machine's first non-internal IPv4 address, if any: a caller connecting to it is not on loopback. */
function externalIPv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address
}

const PERSONAL_CALLS: [string, unknown[]][] = [
  ['personal_listAccounts', []],
  ['personal_listWallets', []],
  ['personal_newAccount', ['pw']],
  ['personal_importRawKey', ['11'.repeat(32), 'pw']],
  ['personal_unlockAccount', [DEV[0], '', 1]],
  ['personal_lockAccount', [DEV[0]]],
  ['personal_sendTransaction', [{ from: DEV[0], to: SINK }, '']],
  ['personal_sign', ['0x01', DEV[0], '']],
  ['personal_ecRecover', ['0x01', '0x' + '00'.repeat(65)]],
  ['personal_initializeWallet', ['keycard://x']],
  ['personal_unpair', ['keycard://x', '1234']],
]

describe('personal on a dev node (loopback callers are authorised)', () => {
  let t: TestNode
  const clock = new FakeClock()
  /** An account created through personal_newAccount, funded by a dev account. */
  let alice: string
  beforeAll(async () => {
    t = await startTestNode({ nodeOptions: { accounts: { clock } } })
    alice = await call<string>(t.url, 'personal_newAccount', ['alice pw'])
    const fund = await call(t.url, 'eth_sendTransaction', [{ from: DEV[0], to: alice, value: '0xde0b6b3a7640000' }])
    await waitFor(async () => (await rpc(t.url, 'eth_getTransactionReceipt', [fund])).result, 20_000, 'funding')
  })
  afterAll(() => t?.destroy())

  it('personal_newAccount stores a key file; listAccounts = eth_accounts, dev accounts first', async () => {
    expect(alice).toMatch(/^0x[0-9a-f]{40}$/)
    const listed = await call<string[]>(t.url, 'personal_listAccounts')
    expect(listed).toEqual(await call(t.url, 'eth_accounts'))
    expect(listed.slice(0, 10)).toEqual(DEV)
    expect(listed).toContain(alice)
  })

  it("personal_listWallets: geth's shape, one wallet per key file, Locked or Unlocked", async () => {
    await waitFor(async () => (await call<WalletJson[]>(t.url, 'personal_listWallets')).length >= 11, 20_000, 'dev key files')
    const wallets = await call<WalletJson[]>(t.url, 'personal_listWallets')
    const mine = wallets.find((w) => w.accounts[0].address === alice)
    expect(mine).toEqual({
      url: expect.stringMatching(new RegExp(`^keystore://${join(t.home, 'keystore')}/UTC--.*--${alice.slice(2)}$`)),
      status: 'Locked',
      accounts: [{ address: alice, url: mine!.url }],
    })
    const dev0 = wallets.find((w) => w.accounts[0].address === DEV[0])
    expect(dev0!.status).toBe('Unlocked')
  })

  it("personal_importRawKey returns the key's address; a duplicate or bad key is refused", async () => {
    const wallet = Wallet.createRandom()
    expect(await call(t.url, 'personal_importRawKey', [wallet.privateKey.slice(2), 'pw'])).toBe(wallet.address.toLowerCase())
    expect((await rpc(t.url, 'personal_importRawKey', [wallet.privateKey, 'other'])).error).toEqual({
      code: -32000,
      message: 'account already exists',
    })
    expect((await rpc(t.url, 'personal_importRawKey', ['zz' + '11'.repeat(31), 'pw'])).error).toEqual({
      code: -32000,
      message: 'invalid hex character "z" in private key',
    })
    expect((await rpc(t.url, 'personal_importRawKey', ['11'.repeat(31), 'pw'])).error).toEqual({
      code: -32000,
      message: 'invalid length, need 256 bits',
    })
    expect((await rpc(t.url, 'personal_importRawKey', ['00'.repeat(32), 'pw'])).error).toEqual({
      code: -32000,
      message: 'invalid private key',
    })
    expect(await call(t.url, 'personal_listAccounts')).toContain(wallet.address.toLowerCase())
  })

  it('personal_unlockAccount: wrong passphrase, unknown account, bad durations', async () => {
    expect((await rpc(t.url, 'personal_unlockAccount', [alice, 'nope', 10])).error).toEqual(WRONG_PASSPHRASE)
    expect((await rpc(t.url, 'personal_unlockAccount', ['0x' + '12'.repeat(20), 'x', 10])).error).toEqual({
      code: -32000,
      message: 'no key for given address or file',
    })
    expect((await rpc(t.url, 'personal_unlockAccount', [alice, 'alice pw', '0xa'])).error).toEqual({
      code: -32602,
      message: 'invalid argument 2: json: cannot unmarshal string into Go value of type uint64',
    })
    expect((await rpc(t.url, 'personal_unlockAccount', [alice, 'alice pw', -1])).error).toEqual({
      code: -32602,
      message: 'invalid argument 2: json: cannot unmarshal number -1 into Go value of type uint64',
    })
    expect((await rpc(t.url, 'personal_unlockAccount', [alice, 'alice pw', 1e12])).error).toEqual({
      code: -32000,
      message: 'unlock duration too large',
    })
    expect((await rpc(t.url, 'eth_sign', [alice, '0x01'])).error).toEqual(AUTH_NEEDED)
  })

  it('unlocked for 10 s: signs until exactly the deadline of the injected clock, then is locked again', async () => {
    expect(await call(t.url, 'personal_unlockAccount', [alice, 'alice pw', 10])).toBe(true)
    expect((await call<WalletJson[]>(t.url, 'personal_listWallets')).find((w) => w.accounts[0].address === alice)!.status).toBe('Unlocked')
    expect(await call(t.url, 'eth_sign', [alice, '0x01'])).toMatch(/^0x[0-9a-f]{130}$/)
    clock.advance(9_999)
    expect(await call(t.url, 'eth_sign', [alice, '0x01'])).toMatch(/^0x[0-9a-f]{130}$/)
    clock.advance(1)
    expect((await rpc(t.url, 'eth_sign', [alice, '0x01'])).error).toEqual(AUTH_NEEDED)
    expect((await rpc(t.url, 'eth_sendTransaction', [{ from: alice, to: SINK }])).error).toEqual(AUTH_NEEDED)
    expect((await call<WalletJson[]>(t.url, 'personal_listWallets')).find((w) => w.accounts[0].address === alice)!.status).toBe('Locked')
  })

  it('duration null or absent = 300 s; 0 = until the node stops; personal_lockAccount locks at once', async () => {
    for (const params of [
      [alice, 'alice pw', null],
      [alice, 'alice pw'],
    ]) {
      expect(await call(t.url, 'personal_unlockAccount', params)).toBe(true)
      clock.advance(299_999)
      expect((await rpc(t.url, 'eth_sign', [alice, '0x01'])).result).toBeDefined()
      clock.advance(1)
      expect((await rpc(t.url, 'eth_sign', [alice, '0x01'])).error).toEqual(AUTH_NEEDED)
    }
    expect(await call(t.url, 'personal_unlockAccount', [alice, 'alice pw', 0])).toBe(true)
    clock.advance(10 ** 10)
    expect((await rpc(t.url, 'eth_sign', [alice, '0x01'])).result).toBeDefined()
    expect(await call(t.url, 'personal_lockAccount', [alice])).toBe(true)
    expect((await rpc(t.url, 'eth_sign', [alice, '0x01'])).error).toEqual(AUTH_NEEDED)
    expect(await call(t.url, 'personal_lockAccount', ['0x' + '12'.repeat(20)])).toBe(true)
  })

  it('a dev account stays unlocked until the node stops when unlocked again with a duration (geth)', async () => {
    expect(await call(t.url, 'personal_unlockAccount', [DEV[9], '', 5])).toBe(true)
    clock.advance(6_000)
    expect((await rpc(t.url, 'eth_sign', [DEV[9], '0x01'])).result).toBeDefined()
  })

  it('personal_sendTransaction signs with the passphrase once and leaves the account locked', async () => {
    expect((await rpc(t.url, 'personal_sendTransaction', [{ from: alice, to: SINK, value: '0x1' }, 'nope'])).error).toEqual(
      WRONG_PASSPHRASE,
    )
    const hash = await call(t.url, 'personal_sendTransaction', [{ from: alice, to: SINK, value: '0x1' }, 'alice pw'])
    const receipt = await waitFor(async () => (await rpc(t.url, 'eth_getTransactionReceipt', [hash])).result, 20_000, 'receipt')
    expect(receipt).toMatchObject({ status: '0x1', from: alice })
    expect((await rpc(t.url, 'eth_sign', [alice, '0x01'])).error).toEqual(AUTH_NEEDED)
    expect((await rpc(t.url, 'personal_sendTransaction', [{ to: SINK }, 'alice pw'])).error).toEqual({
      code: -32602,
      message: "invalid argument 0: missing required field 'from' for TransactionArgs",
    })
  })

  it('personal_sign with the passphrase, and personal_ecRecover round trips with it, eth_sign and ethers', async () => {
    const message = '0x' + Buffer.from('sign me').toString('hex')
    expect((await rpc(t.url, 'personal_sign', [message, alice, 'nope'])).error).toEqual(WRONG_PASSPHRASE)
    const signature = await call<string>(t.url, 'personal_sign', [message, alice, 'alice pw'])
    expect((await rpc(t.url, 'eth_sign', [alice, message])).error).toEqual(AUTH_NEEDED) // personal_sign unlocked nothing
    expect(await call(t.url, 'personal_ecRecover', [message, signature])).toBe(alice)
    expect(verifyMessage('sign me', signature).toLowerCase()).toBe(alice)
    // The same digest as eth_sign (and deterministic RFC 6979 signatures): identical bytes.
    expect(await call(t.url, 'personal_sign', [message, DEV[0], ''])).toBe(await call(t.url, 'eth_sign', [DEV[0], message]))
    const wallet = Wallet.createRandom()
    expect(await call(t.url, 'personal_ecRecover', [message, await wallet.signMessage('sign me')])).toBe(wallet.address.toLowerCase())
  })

  it("personal_ecRecover refuses malformed signatures with geth's messages", async () => {
    const signature = await call<string>(t.url, 'eth_sign', [DEV[0], '0x01'])
    expect((await rpc(t.url, 'personal_ecRecover', ['0x01', signature.slice(0, -2)])).error).toEqual({
      code: -32000,
      message: 'signature must be 65 bytes long',
    })
    expect((await rpc(t.url, 'personal_ecRecover', ['0x01', signature.slice(0, -2) + '01'])).error).toEqual({
      code: -32000,
      message: 'invalid Ethereum signature (V is not 27 or 28)',
    })
  })

  it('personal_initializeWallet and personal_unpair: smart-card wallets are not supported', async () => {
    for (const [method, params] of [
      ['personal_initializeWallet', ['keycard://04']],
      ['personal_unpair', ['keycard://04', '123456']],
    ] as const) {
      expect((await rpc(t.url, method, [...params])).error).toEqual({ code: -32000, message: 'smart-card wallets are not supported' })
    }
  })

  it('sees a key imported offline into the same key store while the node runs', async () => {
    const wallet = Wallet.createRandom()
    const store = new KeyStore({ dir: join(t.home, 'keystore'), scrypt: LIGHT_SCRYPT })
    await store.importKey(Buffer.from(wallet.privateKey.slice(2), 'hex'), 'offline pw', { name: 'offline' })
    expect(await call(t.url, 'personal_listAccounts')).toContain(wallet.address.toLowerCase())
    expect(await call(t.url, 'personal_unlockAccount', [wallet.address, 'offline pw', 60])).toBe(true)
    expect(await call(t.url, 'personal_ecRecover', ['0x01', await call(t.url, 'eth_sign', [wallet.address, '0x01'])])).toBe(
      wallet.address.toLowerCase(),
    )
  })
})

describe('personal on a node without --dev: JWT, and unlocking from the network', () => {
  let t: TestNode
  let auth: () => Record<string, string>
  let httpPort: number
  let wsPort: number
  const external = externalIPv4()
  beforeAll(async () => {
    t = await startTestNode({
      dev: false,
      flags: { 'json-rpc.api': 'eth,net,web3,personal', 'json-rpc.address': '0.0.0.0:0', 'json-rpc.ws-address': '0.0.0.0:0' },
      nodeOptions: { accounts: { scrypt: LIGHT_SCRYPT } },
    })
    const secret = parseJwtSecret(await readFile(join(t.home, 'config/jwt.hex'), 'utf8'))
    auth = () => ({ authorization: `Bearer ${createJwt(secret)}` })
    httpPort = Number(new URL(t.addresses.jsonRpcHttp!).port)
    wsPort = Number(new URL(t.addresses.jsonRpcWs!).port)
  })
  afterAll(() => t?.destroy())

  it('refuses every personal_* method without a token over HTTP: 401 and -32001', async () => {
    for (const [method, params] of PERSONAL_CALLS) {
      expect(await post(`http://127.0.0.1:${httpPort}`, method, params), method).toEqual({
        status: 401,
        json: { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'unauthorized' } },
      })
    }
  })

  it('refuses every personal_* method without a token over WebSocket', async () => {
    const ws = await RawWsClient.connect(`ws://127.0.0.1:${wsPort}`)
    try {
      for (const [method, params] of PERSONAL_CALLS)
        expect((await ws.request(method, params)).error, method).toEqual({ code: -32001, message: 'unauthorized' })
    } finally {
      await ws.close()
    }
  })

  it('serves personal_* with a token over HTTP, and there are no dev accounts', async () => {
    const url = `http://127.0.0.1:${httpPort}`
    expect((await post(url, 'personal_listAccounts', [], auth())).json.result).toEqual([])
    const created = (await post(url, 'personal_newAccount', ['pw'], auth())).json.result
    expect(created).toMatch(/^0x[0-9a-f]{40}$/)
    expect((await post(url, 'personal_listAccounts', [], auth())).json.result).toEqual([created])
    expect((await post(url, 'personal_unlockAccount', [created, 'pw', 30], auth())).json.result).toBe(true) // loopback caller
    expect((await post(url, 'personal_lockAccount', [created], auth())).json.result).toBe(true)
    expect((await post(url, 'personal_initializeWallet', ['keycard://1'], auth())).json.error).toEqual({
      code: -32000,
      message: 'smart-card wallets are not supported',
    })
  })

  it('serves personal_* over a WebSocket authorised at the upgrade', async () => {
    const ws = await RawWsClient.connect(`ws://127.0.0.1:${wsPort}`, { headers: auth() })
    try {
      const accounts = await ws.call<string[]>('personal_listAccounts')
      expect(accounts).toHaveLength(1)
      expect(await ws.call('personal_unlockAccount', [accounts[0], 'pw', 30])).toBe(true)
      expect((await ws.request('personal_unlockAccount', [accounts[0], 'bad', 30])).error).toEqual(WRONG_PASSPHRASE)
      expect(await ws.call('personal_lockAccount', [accounts[0]])).toBe(true)
    } finally {
      await ws.close()
    }
  })

  it.skipIf(external === undefined)(
    'refuses personal_unlockAccount to an authorised caller that is not on loopback, over HTTP and WebSocket',
    async () => {
      const url = `http://${external}:${httpPort}`
      const [account] = (await post<string[]>(url, 'personal_listAccounts', [], auth())).json.result!
      expect((await post(url, 'personal_unlockAccount', [account, 'pw', 30], auth())).json.error).toEqual(FORBIDDEN)
      // Everything else still works from there.
      expect((await post(url, 'personal_sign', ['0x01', account, 'pw'], auth())).json.result).toMatch(/^0x[0-9a-f]{130}$/)
      const ws = await RawWsClient.connect(`ws://${external}:${wsPort}`, { headers: auth() })
      try {
        expect((await ws.request('personal_unlockAccount', [account, 'pw', 30])).error).toEqual(FORBIDDEN)
      } finally {
        await ws.close()
      }
    },
  )
})

describe('allow-insecure-unlock', () => {
  it('decides from the caller and the setting', () => {
    expect(mayUnlock({ loopback: true }, false)).toBe(true)
    expect(mayUnlock({ loopback: false }, false)).toBe(false)
    expect(mayUnlock({ loopback: false }, true)).toBe(true)
  })

  const external = externalIPv4()
  it.skipIf(external === undefined)('lets a non-loopback caller unlock when set', async () => {
    const t = await startTestNode({ flags: { 'json-rpc.address': '0.0.0.0:0', 'json-rpc.allow-insecure-unlock': true } })
    try {
      const secret = parseJwtSecret(await readFile(join(t.home, 'config/jwt.hex'), 'utf8'))
      const url = `http://${external}:${new URL(t.url).port}`
      const reply = await post(url, 'personal_unlockAccount', [DEV[0], '', 30], { authorization: `Bearer ${createJwt(secret)}` })
      expect(reply.json).toEqual({ jsonrpc: '2.0', id: 1, result: true })
    } finally {
      await t.destroy()
    }
  })
})

describe('node stop', () => {
  it('finishes the dev key files and locks every account', async () => {
    const t = await startTestNode()
    try {
      const accounts = t.node.components.accounts
      expect(accounts.unlocks.unlockedAddresses()).toHaveLength(10)
      await t.stop() // right after start: the background writes are awaited, not cut short
      expect(accounts.unlocks.unlockedAddresses()).toEqual([])
      const files = await readdir(join(t.home, 'keystore'))
      expect(files.filter((f) => f.startsWith('UTC--'))).toHaveLength(10)
      expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([])
    } finally {
      await t.destroy()
    }
  })
})
