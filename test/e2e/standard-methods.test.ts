/**
 * The newest standard eth methods against a real dev node — eth_config, eth_capabilities,
 * eth_getStorageValues, eth_fillTransaction, eth_blobBaseFee — each result validated against its
 * execution-apis result schema and checked against what the chain itself shows (the genesis block,
 * eth_getStorageAt, the EVM's BLOBBASEFEE, a transaction signed from the filled fields and mined).
 */
import { crc32 } from 'node:zlib'
import { RLP } from '@ethereumjs/rlp'
import { JsonRpcProvider, Transaction, Wallet, getBytes, hexlify, keccak256 } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { BlockJson, TransactionJson } from '../../src/api/eth/format.js'
import type { ForkConfigJson, ResourceJson } from '../../src/api/eth/eth-config.js'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { resultValidator } from '../helpers/execution-apis.js'

const [ALICE, BOB] = devAccounts(2)
/** Init code storing 42 at slot 0 and 7 at slot 1, deploying no code. */
const STORE_INIT_CODE = '0x602a5f5560076001555f5ff3'
/** Init code returning BLOBBASEFEE (EIP-7516) as one word: eth_call of a creation returns it. */
const BLOB_BASE_FEE_INIT_CODE = '0x4a5f5260205ff3'
const word = (n: number): string => '0x' + n.toString(16).padStart(64, '0')

/** The result of a call; throws on an error reply. */
async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await rpc(url, method, params)
  if (r.error) throw new Error(`${method}: ${r.error.message}`)
  return r.result as T
}

/** The result, after checking it against the method's execution-apis result schema. */
async function validResult<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const value = await result<T>(url, method, params)
  expect(resultValidator(method)(value), method).toBeUndefined()
  return value
}

describe('newest standard methods', () => {
  let t: TestNode
  let provider: JsonRpcProvider
  let alice: Wallet
  let store: string
  let deployedAt: number

  beforeAll(async () => {
    t = await startTestNode()
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    alice = new Wallet(ALICE!.privateKey, provider)
    const receipt = await (await alice.sendTransaction({ data: STORE_INIT_CODE })).wait()
    store = receipt!.contractAddress!.toLowerCase()
    deployedAt = receipt!.blockNumber
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('eth_config: Cancun from genesis, no fork scheduled, forkId = CRC32 of the genesis hash', async () => {
    const config = await validResult<{ current: ForkConfigJson; next: null; last: null }>(t.url, 'eth_config')
    const genesis = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x0', false])
    const forkId = '0x' + crc32(getBytes(genesis.hash)).toString(16).padStart(8, '0')
    expect(config.next).toBeNull()
    expect(config.last).toBeNull()
    expect(config.current).toEqual({
      activationTime: 0,
      blobSchedule: { baseFeeUpdateFraction: 3_338_477, max: 0, target: 0 },
      chainId: await result<string>(t.url, 'eth_chainId'),
      forkId,
      precompiles: {
        BLAKE2F: '0x0000000000000000000000000000000000000009',
        BN254_ADD: '0x0000000000000000000000000000000000000006',
        BN254_MUL: '0x0000000000000000000000000000000000000007',
        BN254_PAIRING: '0x0000000000000000000000000000000000000008',
        ECREC: '0x0000000000000000000000000000000000000001',
        ID: '0x0000000000000000000000000000000000000004',
        KZG_POINT_EVALUATION: '0x000000000000000000000000000000000000000a',
        MODEXP: '0x0000000000000000000000000000000000000005',
        RIPEMD160: '0x0000000000000000000000000000000000000003',
        SHA256: '0x0000000000000000000000000000000000000002',
        VALIDATOR_ADMIN: '0x0000000000000000000000000000000000000800',
      },
      systemContracts: {},
    })
    // Members in alphabetical order, as EIP-7910 presents them.
    expect(Object.keys(config.current.precompiles)).toEqual(Object.keys(config.current.precompiles).sort())
  })

  it('eth_capabilities: the head, and every kind of data kept from the genesis block on (archive)', async () => {
    const caps = await validResult<Record<string, ResourceJson> & { head: { number: string; hash: string } }>(t.url, 'eth_capabilities')
    const head = await result<BlockJson>(t.url, 'eth_getBlockByNumber', [caps.head.number, false])
    expect(caps.head.hash).toBe(head.hash)
    expect(Number(caps.head.number)).toBeGreaterThanOrEqual(deployedAt)
    for (const kind of ['state', 'tx', 'logs', 'receipts', 'blocks', 'stateproofs']) {
      expect(caps[kind], kind).toEqual({ disabled: false, oldestBlock: '0x0' })
    }
    // What it claims holds: the oldest block and its state are served.
    expect(await result<BlockJson | null>(t.url, 'eth_getBlockByNumber', ['0x0', false])).not.toBeNull()
    expect(BigInt(await result<string>(t.url, 'eth_getBalance', [ALICE!.address, '0x0']))).toBeGreaterThan(0n)
  })

  it('eth_getStorageValues: several accounts and slots at a block, as eth_getStorageAt reads them', async () => {
    const request = { [store]: ['0x0', '0x01', word(2)], [BOB!.address]: ['0x'] }
    const values = await validResult<Record<string, string[]>>(t.url, 'eth_getStorageValues', [request, 'latest'])
    expect(values).toEqual({ [store]: [word(42), word(7), word(0)], [BOB!.address.toLowerCase()]: [word(0)] })
    for (const [i, slot] of ['0x0', '0x1', '0x2'].entries()) {
      expect(values[store]![i]).toBe(await result<string>(t.url, 'eth_getStorageAt', [store, slot, 'latest']))
    }
    // Before the deployment, by number and by EIP-1898 hash; the block parameter defaults to latest.
    const before = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x' + (deployedAt - 1).toString(16), false])
    const zeros = { [store]: [word(0), word(0), word(0)], [BOB!.address.toLowerCase()]: [word(0)] }
    expect(await result(t.url, 'eth_getStorageValues', [request, before.number])).toEqual(zeros)
    expect(await result(t.url, 'eth_getStorageValues', [request, { blockHash: before.hash }])).toEqual(zeros)
    expect(await result(t.url, 'eth_getStorageValues', [{ [store]: ['0x0'] }])).toEqual({ [store]: [word(42)] })
  })

  it('eth_getStorageValues refuses bad requests with clear errors', async () => {
    const cases: [unknown[], number, string][] = [
      [[{}], -32602, 'empty request'],
      [[{ [store]: [] }], -32602, 'empty request'],
      [[{ [store]: Array.from({ length: 1025 }, (_, i) => word(i)) }], -38026, 'too many slots (max 1024)'],
      [[{ [store]: ['0xzz'] }], -32602, 'invalid argument 0: storage key "0xzz": hex string invalid'],
      [[{ [store]: ['0x' + '11'.repeat(33)] }], -32602, 'hex string too long, want at most 32 bytes'],
      [[{ [store]: ['00'] }], -32602, 'storage key "00": hex string without 0x prefix'],
      [[{ '0x1234': ['0x0'] }], -32602, 'invalid argument 0:'],
      [[[store]], -32602, 'invalid argument 0:'],
      [[{ [store]: ['0x0'] }, '0xffffff'], -32000, 'header not found'],
    ]
    for (const [params, code, message] of cases) {
      const reply = await rpc(t.url, 'eth_getStorageValues', params)
      expect(reply.error?.code, JSON.stringify(params).slice(0, 80)).toBe(code)
      expect(reply.error?.message).toContain(message)
    }
    // 1024 slots in all, over several accounts, is within the limit.
    const full = { [store]: Array.from({ length: 1000 }, (_, i) => word(i)), [BOB!.address]: Array.from({ length: 24 }, (_, i) => word(i)) }
    const values = await result<Record<string, string[]>>(t.url, 'eth_getStorageValues', [full])
    expect(values[store]!.slice(0, 2)).toEqual([word(42), word(7)])
  })

  it('eth_fillTransaction fills an EIP-1559 transfer that, signed as filled, is mined', async () => {
    const filled = await validResult<{ raw: string; tx: TransactionJson }>(t.url, 'eth_fillTransaction', [
      { from: ALICE!.address, to: BOB!.address, value: '0x1' },
    ])
    const { tx } = filled
    const [head, tip, nonce] = await Promise.all([
      result<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false]),
      result<string>(t.url, 'eth_maxPriorityFeePerGas'),
      result<string>(t.url, 'eth_getTransactionCount', [ALICE!.address, 'pending']),
    ])
    expect(tx).toMatchObject({
      type: '0x2',
      chainId: await result<string>(t.url, 'eth_chainId'),
      nonce,
      gas: '0x5208',
      to: BOB!.address.toLowerCase(),
      value: '0x1',
      input: '0x',
      accessList: [],
      maxPriorityFeePerGas: tip,
      v: '0x0',
      r: '0x0',
      s: '0x0',
    })
    expect(BigInt(tx.maxFeePerGas!)).toBe(2n * BigInt(head.baseFeePerGas!) + BigInt(tip))
    expect(tx.hash).toBe(keccak256(filled.raw))
    // raw: the type byte, then the RLP of the unsigned fields followed by an empty signature.
    const unsigned = Transaction.from({
      type: 2,
      chainId: BigInt(tx.chainId!),
      nonce: Number(tx.nonce),
      gasLimit: BigInt(tx.gas),
      to: tx.to!,
      value: BigInt(tx.value),
      data: tx.input,
      maxFeePerGas: BigInt(tx.maxFeePerGas!),
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas!),
      accessList: [],
    })
    const fields = RLP.decode(getBytes(filled.raw).subarray(1)) as Uint8Array[]
    expect(getBytes(filled.raw)[0]).toBe(2)
    expect(hexlify(RLP.encode(fields.slice(0, 9)))).toBe('0x' + unsigned.unsignedSerialized.slice(4))
    expect(fields.slice(9).map((f) => f.length)).toEqual([0, 0, 0])
    // Signed and sent as filled, it is mined.
    const receipt = await (await provider.broadcastTransaction(await alice.signTransaction(unsigned))).wait()
    expect(receipt!.status).toBe(1)
  })

  it('eth_fillTransaction: a gasPrice makes a legacy transaction, a creation is estimated; bad arguments are refused', async () => {
    const legacy = await validResult<{ raw: string; tx: TransactionJson }>(t.url, 'eth_fillTransaction', [
      { from: ALICE!.address, data: STORE_INIT_CODE, gasPrice: '0x3b9aca00' },
    ])
    expect(legacy.tx).toMatchObject({ type: '0x0', to: null, gasPrice: '0x3b9aca00', input: STORE_INIT_CODE, v: '0x0' })
    expect(BigInt(legacy.tx.gas)).toBeGreaterThan(53_000n)
    const fields = RLP.decode(getBytes(legacy.raw)) as Uint8Array[]
    expect(fields).toHaveLength(9)
    expect(fields.slice(6).map((f) => f.length)).toEqual([0, 0, 0])

    const chainId = BigInt(await result<string>(t.url, 'eth_chainId'))
    const bad: [unknown[], number, string][] = [
      [[{ from: '0x1234', to: BOB!.address }], -32602, 'invalid argument 0:'],
      [[], -32602, 'missing value for required argument 0'],
      // No `from`: the zero address, as in geth, whose estimate fails without funds.
      [[{ to: BOB!.address, value: '0x1' }], -32000, 'insufficient funds for transfer'],
      [[{ from: ALICE!.address, to: BOB!.address, chainId: '0x' + (chainId + 1n).toString(16) }], -32000, "chainId does not match node's"],
      [[{ from: ALICE!.address, to: BOB!.address, gasPrice: '0x1', maxFeePerGas: '0x1' }], -32602, 'invalid argument 0:'],
    ]
    for (const [params, code, message] of bad) {
      const reply = await rpc(t.url, 'eth_fillTransaction', params)
      expect(reply.error?.code, JSON.stringify(params)).toBe(code)
      expect(reply.error?.message).toContain(message)
    }
  })

  it('eth_blobBaseFee: 1 wei, what the EVM’s BLOBBASEFEE returns, with excessBlobGas 0 in the header', async () => {
    expect(await validResult<string>(t.url, 'eth_blobBaseFee')).toBe('0x1')
    expect(await result<string>(t.url, 'eth_call', [{ data: BLOB_BASE_FEE_INIT_CODE }, 'latest'])).toBe(word(1))
    const head = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false])
    expect(head).toMatchObject({ excessBlobGas: '0x0', blobGasUsed: '0x0' })
  })
})

describe('newest standard methods on a chain that is not a dev chain', () => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode({ dev: false })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('serves them all, with the same rules and its own genesis', async () => {
    const config = await validResult<{ current: ForkConfigJson }>(t.url, 'eth_config')
    const genesis = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x0', false])
    expect(config.current.forkId).toBe('0x' + crc32(getBytes(genesis.hash)).toString(16).padStart(8, '0'))
    expect(Object.keys(config.current.precompiles)).toHaveLength(11)
    await validResult(t.url, 'eth_capabilities')
    expect(await validResult(t.url, 'eth_blobBaseFee')).toBe('0x1')
    expect(await validResult(t.url, 'eth_getStorageValues', [{ [ALICE!.address]: ['0x0'] }])).toEqual({
      [ALICE!.address.toLowerCase()]: [word(0)],
    })
    await validResult(t.url, 'eth_fillTransaction', [{ from: ALICE!.address, to: BOB!.address, value: '0x1' }])
  })
})
