/**
 * Node-side signing on a real dev node: the dev accounts are in the key store and unlocked from the
 * start, so wallets that expect node-managed accounts work at once: ethers' JsonRpcSigner
 * (sendTransaction, signMessage, signTypedData), viem's wallet client with a JSON-RPC account, and the raw
 * eth_signTransaction / eth_sendTransaction with geth's defaults and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JsonRpcProvider, Transaction, getAddress, verifyMessage, verifyTypedData, type JsonRpcSigner } from 'ethers'
import { createPublicClient, createWalletClient, http, recoverMessageAddress, type Hex } from 'viem'
import { foundry } from 'viem/chains'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { componentValidator, resultValidator } from '../helpers/execution-apis.js'
import type { BlockJson, ReceiptJson, TransactionJson } from '../../src/api/eth/format.js'

const DEV = devAccounts().map((a) => a.address.toLowerCase())
const GWEI = 10n ** 9n
const SINK = '0x' + '5a'.repeat(20)

/** geth's result of eth_signTransaction. */
interface SignedTx {
  raw: string
  tx: TransactionJson
}

/** The result of a call, of the shape `T` the caller expects, failing the test with the error otherwise. */
async function call<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const reply = await rpc(url, method, params)
  if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`)
  return reply.result as T
}

async function receiptOf(url: string, hash: string): Promise<ReceiptJson> {
  return waitFor(async () => (await rpc<ReceiptJson>(url, 'eth_getTransactionReceipt', [hash])).result, 20_000, `receipt of ${hash}`)
}

describe('node-side signing with the unlocked dev accounts', () => {
  let t: TestNode
  let provider: JsonRpcProvider
  beforeAll(async () => {
    t = await startTestNode()
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('eth_accounts lists the 10 dev accounts at once, in derivation order', async () => {
    const accounts = await call<string[]>(t.url, 'eth_accounts')
    expect(accounts.slice(0, 10)).toEqual(DEV)
    expect(resultValidator('eth_accounts')(accounts)).toBeUndefined()
  })

  it('writes the dev key files in the background', async () => {
    await waitFor(async () => (await t.node.components.accounts.store.list()).length >= 10, 20_000, 'dev key files')
    const files = await t.node.components.accounts.store.list()
    expect(files.map((f) => f.address.toLowerCase()).sort()).toEqual([...DEV].sort())
  })

  describe('ethers JsonRpcSigner', () => {
    let signer: JsonRpcSigner
    beforeAll(async () => {
      signer = await provider.getSigner(getAddress(DEV[1]!))
    })

    it('sends a transaction that is mined with status 1', async () => {
      const tx = await signer.sendTransaction({ to: SINK, value: 12345n })
      const receipt = await tx.wait()
      expect(receipt!.status).toBe(1)
      expect(receipt!.from.toLowerCase()).toBe(DEV[1])
      expect(await provider.getBalance(SINK)).toBeGreaterThanOrEqual(12345n)
    })

    it('signs a message that verifyMessage attributes to the account (personal_sign without a passphrase)', async () => {
      const signature = await signer.signMessage('hello nodectl')
      expect(verifyMessage('hello nodectl', signature).toLowerCase()).toBe(DEV[1])
    })

    it('signs EIP-712 typed data that verifyTypedData attributes to the account', async () => {
      const domain = { name: 'Ether Mail', version: '1', chainId: 31337, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' }
      const types = {
        Person: [
          { name: 'name', type: 'string' },
          { name: 'wallet', type: 'address' },
        ],
        Mail: [
          { name: 'from', type: 'Person' },
          { name: 'to', type: 'Person' },
          { name: 'contents', type: 'string' },
        ],
      }
      const value = {
        from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
        to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
        contents: 'Hello, Bob!',
      }
      const signature = await signer.signTypedData(domain, types, value)
      expect(verifyTypedData(domain, types, value, signature).toLowerCase()).toBe(DEV[1])
    })
  })

  describe('viem wallet client with a JSON-RPC account', () => {
    it('sends a transaction and signs a message', async () => {
      const chain = { ...foundry, rpcUrls: { default: { http: [t.url] } } }
      const account = getAddress(DEV[2]!) as Hex
      const wallet = createWalletClient({ account, chain, transport: http(t.url) })
      const publicClient = createPublicClient({ chain, transport: http(t.url), pollingInterval: 50 })
      const hash = await wallet.sendTransaction({ to: SINK as Hex, value: 1n, account, chain })
      const receipt = await publicClient.waitForTransactionReceipt({ hash })
      expect(receipt.status).toBe('success')
      expect(receipt.from).toBe(DEV[2])
      const signature = await wallet.signMessage({ account, message: 'from viem' })
      expect((await recoverMessageAddress({ message: 'from viem', signature })).toLowerCase()).toBe(DEV[2])
    })
  })

  describe('eth_sign', () => {
    it('signs the EIP-191 hash with V 27/28 (ethers verifies it; the schema accepts it)', async () => {
      const signature = await call<string>(t.url, 'eth_sign', [DEV[3], '0xdeadbeef'])
      expect(componentValidator('bytes65')(signature)).toBeUndefined()
      expect([27, 28]).toContain(parseInt(signature.slice(-2), 16))
      expect(verifyMessage(new Uint8Array([0xde, 0xad, 0xbe, 0xef]), signature).toLowerCase()).toBe(DEV[3])
    })
  })

  describe('eth_signTransaction', () => {
    it("returns geth's {raw, tx}: raw decodes to the same fields and is accepted by eth_sendRawTransaction", async () => {
      const from = DEV[4]!
      const nonce = await call<string>(t.url, 'eth_getTransactionCount', [from, 'pending'])
      const args = {
        from,
        to: SINK,
        value: '0x64',
        gas: '0x5208',
        maxFeePerGas: '0x' + (100n * GWEI).toString(16),
        maxPriorityFeePerGas: '0x' + GWEI.toString(16),
        nonce,
        input: '0x',
      }
      const result = await call<SignedTx>(t.url, 'eth_signTransaction', [args])
      expect(resultValidator('eth_signTransaction')(result)).toBeUndefined()
      const decoded = Transaction.from(result.raw)
      expect(decoded.from!.toLowerCase()).toBe(from)
      expect(decoded.type).toBe(2)
      expect(decoded.to!.toLowerCase()).toBe(SINK)
      expect(decoded.value).toBe(100n)
      expect(decoded.gasLimit).toBe(21_000n)
      expect(decoded.maxFeePerGas).toBe(100n * GWEI)
      expect(decoded.maxPriorityFeePerGas).toBe(GWEI)
      expect(decoded.nonce).toBe(Number(nonce))
      expect(decoded.chainId).toBe(31337n)
      expect(result.tx).toMatchObject({
        hash: decoded.hash,
        from,
        to: SINK,
        type: '0x2',
        nonce,
        gas: '0x5208',
        value: '0x64',
        chainId: '0x7a69',
        blockHash: null,
      })
      expect(await call(t.url, 'eth_getTransactionCount', [from, 'pending'])).toBe(nonce) // signed, not sent
      const hash = await call<string>(t.url, 'eth_sendRawTransaction', [result.raw])
      expect(hash).toBe(decoded.hash)
      expect((await receiptOf(t.url, hash)).status).toBe('0x1')
    })

    it('signs a legacy transaction when gasPrice is given (EIP-155 protected)', async () => {
      const from = DEV[4]!
      const nonce = await call<string>(t.url, 'eth_getTransactionCount', [from, 'pending'])
      const result = await call<SignedTx>(t.url, 'eth_signTransaction', [
        { from, to: SINK, gas: '0x5208', gasPrice: '0x' + (10n * GWEI).toString(16), nonce },
      ])
      expect(resultValidator('eth_signTransaction')(result)).toBeUndefined()
      const decoded = Transaction.from(result.raw)
      expect(decoded.type).toBe(0)
      expect(decoded.chainId).toBe(31337n)
      expect(result.tx.type).toBe('0x0')
    })

    it("requires gas, fees and nonce, with geth's messages", async () => {
      const base = { from: DEV[4], to: SINK, gas: '0x5208', gasPrice: '0x1', nonce: '0x0' }
      const without = (key: string) => Object.fromEntries(Object.entries(base).filter(([k]) => k !== key))
      expect((await rpc(t.url, 'eth_signTransaction', [without('gas')])).error).toEqual({ code: -32000, message: 'gas not specified' })
      expect((await rpc(t.url, 'eth_signTransaction', [without('gasPrice')])).error).toEqual({
        code: -32000,
        message: 'missing gasPrice or maxFeePerGas/maxPriorityFeePerGas',
      })
      expect((await rpc(t.url, 'eth_signTransaction', [{ ...without('gasPrice'), maxFeePerGas: '0x2' }])).error).toEqual({
        code: -32000,
        message: 'missing gasPrice or maxFeePerGas/maxPriorityFeePerGas',
      })
      expect((await rpc(t.url, 'eth_signTransaction', [without('nonce')])).error).toEqual({ code: -32000, message: 'nonce not specified' })
    })

    it('checks txfee-cap before signing', async () => {
      const reply = await rpc(t.url, 'eth_signTransaction', [
        { from: DEV[4], to: SINK, gas: '0xf4240', gasPrice: '0x' + (2000n * GWEI).toString(16), nonce: '0x0' },
      ])
      expect(reply.error).toEqual({ code: -32000, message: 'tx fee (2.00 ether) exceeds the configured cap (1.00 ether)' })
    })
  })

  describe('eth_sendTransaction', () => {
    it('with gasPrice sends a legacy transaction (type 0x0) at that price, gas estimated', async () => {
      const hash = await call<string>(t.url, 'eth_sendTransaction', [
        { from: DEV[5], to: SINK, value: '0x1', gasPrice: '0x' + (5n * GWEI).toString(16) },
      ])
      expect(resultValidator('eth_sendTransaction')(hash)).toBeUndefined()
      const tx = await call(t.url, 'eth_getTransactionByHash', [hash])
      expect(tx).toMatchObject({ type: '0x0', gasPrice: '0x' + (5n * GWEI).toString(16), gas: '0x5208', from: DEV[5] })
      expect((await receiptOf(t.url, hash)).status).toBe('0x1')
    })

    it('without fees sends EIP-1559 (type 0x2): tip = eth_maxPriorityFeePerGas, cap = 2 × base fee + tip', async () => {
      const [tip, head] = await Promise.all([
        call<string>(t.url, 'eth_maxPriorityFeePerGas'),
        call<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false]),
      ])
      const hash = await call<string>(t.url, 'eth_sendTransaction', [{ from: DEV[5], to: SINK, value: '0x2', gasLimit: '0x7530' }])
      const tx = await call<TransactionJson>(t.url, 'eth_getTransactionByHash', [hash])
      expect(tx.type).toBe('0x2')
      expect(tx.gas).toBe('0x7530') // gasLimit is an alias of gas
      expect(BigInt(tx.maxPriorityFeePerGas!)).toBe(BigInt(tip))
      // The head may have moved on between the two reads; the cap is 2 × some recent base fee + tip.
      expect(BigInt(tx.maxFeePerGas!)).toBeGreaterThanOrEqual(BigInt(tip))
      expect(BigInt(tx.maxFeePerGas!) - BigInt(tx.maxPriorityFeePerGas!)).toBeLessThanOrEqual(2n * BigInt(head.baseFeePerGas))
      expect((await receiptOf(t.url, hash)).status).toBe('0x1')
    })

    it('deploys a contract with an estimated gas limit (more than the 90,000 of old geth)', async () => {
      // PUSH1 200 PUSH1 0 RETURN: 200 zero bytes of runtime code, 40,000 gas of code deposit on top of 53,000.
      const hash = await call<string>(t.url, 'eth_sendTransaction', [{ from: DEV[5], input: '0x60c86000f3' }])
      const receipt = await receiptOf(t.url, hash)
      expect(receipt.status).toBe('0x1')
      expect(BigInt(receipt.gasUsed)).toBeGreaterThan(90_000n)
      expect(receipt.contractAddress).toMatch(/^0x[0-9a-f]{40}$/)
    })

    it('gives concurrent sends of one account consecutive nonces', async () => {
      const from = DEV[6]!
      const start = BigInt(await call<string>(t.url, 'eth_getTransactionCount', [from, 'pending']))
      const hashes = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          call<string>(t.url, 'eth_sendTransaction', [{ from, to: SINK, value: '0x' + (i + 1).toString(16) }]),
        ),
      )
      const nonces = await Promise.all(
        hashes.map(async (h) => BigInt((await call<TransactionJson>(t.url, 'eth_getTransactionByHash', [h])).nonce)),
      )
      expect(nonces.sort((a, b) => Number(a - b))).toEqual([0n, 1n, 2n, 3n, 4n].map((n) => start + n))
      for (const h of hashes) expect((await receiptOf(t.url, h)).status).toBe('0x1')
    })

    it("replaces the sender's own pending transaction when given its nonce and higher fees", async () => {
      const from = DEV[7]!
      const nonce = await call<string>(t.url, 'eth_getTransactionCount', [from, 'pending'])
      // A fee cap below the base fee: admitted, but never proposed, so it stays pending.
      const stuck = await call<string>(t.url, 'eth_sendTransaction', [
        { from, to: SINK, value: '0x1', gas: '0x5208', maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1', nonce },
      ])
      const content = await call<{ pending: Record<string, TransactionJson> }>(t.url, 'txpool_contentFrom', [from])
      expect(content.pending[BigInt(nonce).toString()]).toBeDefined()
      const low = await rpc(t.url, 'eth_sendTransaction', [
        { from, to: SINK, value: '0x1', gas: '0x5208', maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1', nonce },
      ])
      expect(low.error).toEqual({ code: -32000, message: 'already known' })
      const replacement = await call<string>(t.url, 'eth_sendTransaction', [{ from, to: SINK, value: '0x2', nonce }])
      expect(replacement).not.toBe(stuck)
      const receipt = await receiptOf(t.url, replacement)
      expect(receipt.status).toBe('0x1')
      expect(await call(t.url, 'eth_getTransactionByHash', [stuck])).toBeNull()
    })

    it('refuses a transaction over txfee-cap with the pool message', async () => {
      const reply = await rpc(t.url, 'eth_sendTransaction', [
        { from: DEV[8], to: SINK, gas: '0xf4240', gasPrice: '0x' + (2000n * GWEI).toString(16) },
      ])
      expect(reply.error).toEqual({ code: -32000, message: 'tx fee (2.00 ether) exceeds the configured cap (1.00 ether)' })
    })

    it('requires from', async () => {
      for (const method of ['eth_sendTransaction', 'eth_signTransaction']) {
        expect((await rpc(t.url, method, [{ to: SINK, value: '0x1' }])).error).toEqual({
          code: -32602,
          message: "invalid argument 0: missing required field 'from' for TransactionArgs",
        })
      }
    })

    it("refuses a chain id other than the node's", async () => {
      const reply = await rpc(t.url, 'eth_sendTransaction', [{ from: DEV[8], to: SINK, chainId: '0x1' }])
      expect(reply.error).toEqual({ code: -32000, message: "chainId does not match node's (have=1, want=31337)" })
    })
  })

  describe('accounts that are not unlocked', () => {
    let locked: string
    beforeAll(async () => {
      locked = await call<string>(t.url, 'personal_newAccount', ['correct horse'])
    })

    it('lists a new key-store account after the dev accounts', async () => {
      const accounts = await call<string[]>(t.url, 'eth_accounts')
      expect(accounts.slice(0, 10)).toEqual(DEV)
      expect(accounts).toContain(locked)
    })

    it('answer authentication needed: password or unlock to every unlocked-key method', async () => {
      const auth = { code: -32000, message: 'authentication needed: password or unlock' }
      expect((await rpc(t.url, 'eth_sendTransaction', [{ from: locked, to: SINK }])).error).toEqual(auth)
      expect((await rpc(t.url, 'eth_sign', [locked, '0x01'])).error).toEqual(auth)
      expect(
        (await rpc(t.url, 'eth_signTransaction', [{ from: locked, to: SINK, gas: '0x5208', gasPrice: '0x1', nonce: '0x0' }])).error,
      ).toEqual(auth)
      const typed = {
        types: { EIP712Domain: [{ name: 'name', type: 'string' }], Note: [{ name: 'text', type: 'string' }] },
        primaryType: 'Note',
        domain: { name: 'x' },
        message: { text: 'hi' },
      }
      expect((await rpc(t.url, 'eth_signTypedData_v4', [locked, typed])).error).toEqual(auth)
    })

    it('answer unknown account for an address without a key', async () => {
      const stranger = '0x' + '12'.repeat(20)
      expect((await rpc(t.url, 'eth_sign', [stranger, '0x01'])).error).toEqual({ code: -32000, message: 'unknown account' })
      expect((await rpc(t.url, 'eth_sendTransaction', [{ from: stranger, to: SINK }])).error).toEqual({
        code: -32000,
        message: 'unknown account',
      })
    })

    it('refuses malformed typed data as an invalid argument', async () => {
      const reply = await rpc(t.url, 'eth_signTypedData_v4', [DEV[0], '{not json'])
      expect(reply.error?.code).toBe(-32602)
      expect(reply.error?.message).toMatch(/^invalid argument 1: /)
    })
  })
})
