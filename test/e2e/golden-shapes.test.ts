/**
 * The block, transaction, receipt and log objects of a real dev node against golden files
 * (test/fixtures/golden/eth/*.json, normalised by test/helpers/golden.ts): a legacy (type 0), an
 * access-list (type 1) and a dynamic-fee (type 2) transaction, a contract creation (contractAddress
 * set, `to` null) and a log-emitting contract call, each alone in its block. Regenerate with
 * `UPDATE_GOLDEN=1 npx vitest run test/e2e/golden-shapes.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet, getCreateAddress, type TransactionRequest } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { readGolden } from '../helpers/golden.js'
import type { ReceiptJson } from '../../src/api/eth/format.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'

const CHAIN_ID = 31337n
const GWEI = 10n ** 9n
const [A0, A1, A2, A3] = devAccounts(4).map((a) => new Wallet(a.privateKey))

/** Fixed fee fields (no estimation, no fee suggestion): the signed bytes are the same every run. */
const LEGACY: TransactionRequest = {
  type: 0,
  chainId: CHAIN_ID,
  nonce: 0,
  gasLimit: 21_000n,
  gasPrice: 10n * GWEI,
  to: A2!.address,
  value: 1234n,
}
const ACCESS_LIST: TransactionRequest = {
  type: 1,
  chainId: CHAIN_ID,
  nonce: 0,
  gasLimit: 30_000n,
  gasPrice: 10n * GWEI,
  to: A3!.address,
  value: 5678n,
  accessList: [{ address: A3!.address, storageKeys: ['0x' + '00'.repeat(31) + '01'] }],
}
const DYNAMIC_FEE = { type: 2, chainId: CHAIN_ID, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI } as const

describe('golden wire shapes of blocks, transactions, receipts and logs', () => {
  let t: TestNode
  const hashes: Record<'legacy' | 'accessList' | 'creation' | 'call', string> = { legacy: '', accessList: '', creation: '', call: '' }
  let callBlock = ''
  let storeAddress = ''

  /** Sends a signed transaction and waits for its receipt, so the next one lands in a later block. */
  const send = async (wallet: Wallet, tx: TransactionRequest): Promise<string> => {
    const sent = await rpc(t.url, 'eth_sendRawTransaction', [await wallet.signTransaction(tx)])
    if (sent.error) throw new Error(`eth_sendRawTransaction: ${sent.error.message}`)
    const hash = sent.result as string
    await waitFor(async () => (await rpc(t.url, 'eth_getTransactionReceipt', [hash])).result, 20_000, `receipt of ${hash}`)
    return hash
  }

  const expectGolden = async (name: string, value: unknown): Promise<void> => {
    const { expected, actual } = await readGolden(`eth/${name}`, value)
    expect(actual).toBe(expected)
  }

  beforeAll(async () => {
    t = await startTestNode()
    const { Store } = compileContracts('Store.sol')
    const store = new Interface(Store!.abi as never)
    hashes.legacy = await send(A1!, LEGACY)
    hashes.accessList = await send(A2!, ACCESS_LIST)
    const deploy = Store!.bytecode + store.encodeDeploy([7n]).slice(2)
    hashes.creation = await send(A0!, { ...DYNAMIC_FEE, nonce: 0, gasLimit: 1_000_000n, data: deploy })
    storeAddress = getCreateAddress({ from: A0!.address, nonce: 0 }).toLowerCase()
    hashes.call = await send(A0!, {
      ...DYNAMIC_FEE,
      nonce: 1,
      gasLimit: 200_000n,
      to: storeAddress,
      data: store.encodeFunctionData('set', [42n, 'golden']),
    })
    callBlock = (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [hashes.call])).result!.blockNumber
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('block with transaction hashes (eth_getBlockByNumber, false)', async () => {
    await expectGolden('block', (await rpc(t.url, 'eth_getBlockByNumber', [callBlock, false])).result)
  })

  it('block with full transactions (eth_getBlockByNumber, true)', async () => {
    await expectGolden('block-full', (await rpc(t.url, 'eth_getBlockByNumber', [callBlock, true])).result)
  })

  it('transactions of each type (eth_getTransactionByHash)', async () => {
    const get = async (hash: string): Promise<unknown> => (await rpc(t.url, 'eth_getTransactionByHash', [hash])).result
    await expectGolden('transactions', {
      legacy: await get(hashes.legacy),
      accessList: await get(hashes.accessList),
      dynamicFee: await get(hashes.call),
      contractCreation: await get(hashes.creation),
    })
  })

  it('receipts: transfer, contract creation, log-emitting call (eth_getTransactionReceipt)', async () => {
    const get = async (hash: string): Promise<{ contractAddress: string | null; to: string | null }> =>
      (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [hash])).result!
    const creation = await get(hashes.creation)
    expect(creation).toMatchObject({ contractAddress: storeAddress, to: null })
    await expectGolden('receipts', {
      legacy: await get(hashes.legacy),
      accessList: await get(hashes.accessList),
      contractCreation: creation,
      logEmittingCall: await get(hashes.call),
    })
  })

  it('logs (eth_getLogs by address over the call block)', async () => {
    const logs = (await rpc(t.url, 'eth_getLogs', [{ fromBlock: callBlock, toBlock: callBlock, address: storeAddress }])).result
    expect(logs).toHaveLength(1)
    await expectGolden('logs', logs)
  })
})
