/**
 * Our results checked against the official execution-apis OpenRPC schemas: every method we serve that
 * the schemas define is called on the fake chain and its result validated against the method's result
 * schema; and every example request of those methods must be accepted by our param codecs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hexlify } from 'ethers'
import { FakeBackend, wallet } from './fake-backend.js'
import { startTestServer, type TestServer } from './test-server.js'
import { formatBlock, formatLog, formatReceipt, formatTransaction } from '../../../src/api/eth/format.js'
import { compileSchema, componentValidator, methodSpecs } from '../../helpers/execution-apis.js'

describe('execution-apis schemas', () => {
  let backend: FakeBackend
  let t: TestServer
  beforeAll(async () => {
    backend = await FakeBackend.create()
    t = await startTestServer(backend)
  })
  afterAll(() => t.close())

  it('formatters produce valid Block, TransactionInfo, ReceiptInfo and Log objects', async () => {
    const block = componentValidator('Block')
    const txInfo = componentValidator('TransactionInfo')
    const receipt = componentValidator('ReceiptInfo')
    const log = componentValidator('Log')
    // The validators do reject: a block without its required fields, a receipt with an extra field.
    expect(block({ number: '0x1' })).toBeDefined()
    expect(receipt({ ...formatReceipt((await backend.getBlockReceipts(backend.blocks[1]!))[0]!), extra: 1 })).toBeDefined()
    expect(block({ ...formatBlock(backend.blocks[1]!), difficulty: null })).toBeDefined()
    for (const b of backend.blocks) {
      const txs = await backend.getBlockTransactions(b)
      expect(block(formatBlock(b))).toBeUndefined()
      expect(block(formatBlock(b, txs))).toBeUndefined()
      for (const tx of txs) expect(txInfo(formatTransaction(tx, b.timestamp))).toBeUndefined()
      for (const r of await backend.getBlockReceipts(b)) {
        expect(receipt(formatReceipt(r))).toBeUndefined()
        for (const l of r.logs) expect(log(formatLog(l))).toBeUndefined()
      }
    }
  })

  it('method results validate against the method result schemas', async () => {
    const sender = wallet.address.toLowerCase()
    const b1 = hexlify(backend.blocks[1]!.hash)
    const tx1 = hexlify(backend.blocks[1]!.transactions[1]!)
    const calls: [string, unknown[]][] = [
      ['eth_chainId', []],
      ['eth_syncing', []],
      ['eth_coinbase', []],
      ['eth_accounts', []],
      ['eth_blockNumber', []],
      ['net_version', []],
      ['eth_getBlockByNumber', ['0x1', false]],
      ['eth_getBlockByNumber', ['0x1', true]],
      ['eth_getBlockByNumber', ['0x0', true]],
      ['eth_getBlockByNumber', ['0x64', true]],
      ['eth_getBlockByHash', [b1, true]],
      ['eth_getBlockTransactionCountByHash', [b1]],
      ['eth_getBlockTransactionCountByNumber', ['0x1']],
      ['eth_getBlockReceipts', ['0x1']],
      ['eth_getBlockReceipts', ['0x2']],
      ['eth_call', [{ to: '0x' + '33'.repeat(20), input: '0x' }, 'latest']],
      ['eth_estimateGas', [{ from: sender, to: '0x' + '22'.repeat(20) }]],
      ['eth_gasPrice', []],
      ['eth_maxPriorityFeePerGas', []],
      ['eth_feeHistory', ['0x3', 'latest', [10, 90]]],
      ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]],
      ['eth_getBalance', [sender, 'latest']],
      ['eth_getStorageAt', ['0x' + '33'.repeat(20), '0x1', 'latest']],
      ['eth_getTransactionCount', [sender, 'pending']],
      ['eth_getCode', ['0x' + '33'.repeat(20), 'latest']],
      ['eth_getTransactionByHash', [tx1]],
      ['eth_getTransactionByHash', [hexlify(backend.blocks[1]!.transactions[0]!)]],
      ['eth_getTransactionByHash', [hexlify(backend.blocks[2]!.transactions[0]!)]],
      ['eth_getTransactionByBlockHashAndIndex', [b1, '0x0']],
      ['eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x1']],
      ['eth_getTransactionReceipt', [tx1]],
      ['eth_getTransactionReceipt', [hexlify(backend.blocks[2]!.transactions[0]!)]],
      ['eth_getProof', [sender, ['0x1', '0x' + '00'.repeat(31) + '02'], 'latest']],
      ['eth_createAccessList', [{ from: sender, to: '0x' + '33'.repeat(20), input: '0x' }, 'latest']],
      ['eth_getStorageValues', [{ ['0x' + '33'.repeat(20)]: ['0x1', '0x' + '00'.repeat(32)], [sender]: ['0x'] }, 'latest']],
      ['eth_fillTransaction', [{ from: sender, to: '0x' + '22'.repeat(20), value: '0x1' }]],
      ['eth_fillTransaction', [{ from: sender, to: '0x' + '22'.repeat(20), gasPrice: '0x3b9aca00' }]],
      ['eth_fillTransaction', [{ from: sender, input: '0x6080', gasPrice: '0x3b9aca00', accessList: [] }]],
      ['eth_config', []],
      ['eth_blobBaseFee', []],
      ['eth_capabilities', []],
    ]
    const failures: string[] = []
    for (const [name, params] of calls) {
      const spec = methodSpecs.get(name)
      expect(spec, name).toBeDefined()
      const res = await t.call(name, params)
      if (res.error) {
        failures.push(`${name}: ${res.error.message}`)
        continue
      }
      const problem = compileSchema(spec!.result.schema)(res.result)
      if (problem) failures.push(`${name}(${JSON.stringify(params)}): ${problem}`)
    }
    backend.syncing = { startingBlock: 0, currentBlock: 2, highestBlock: 9 }
    const syncing = await t.call('eth_syncing', [])
    backend.syncing = undefined
    const problem = compileSchema(methodSpecs.get('eth_syncing')!.result.schema)(syncing.result)
    if (problem) failures.push(`eth_syncing (syncing): ${problem}`)
    expect(failures).toEqual([])
  })

  it('the spec examples of our methods pass our param codecs', async () => {
    const served = [
      'eth_chainId',
      'eth_syncing',
      'eth_coinbase',
      'eth_accounts',
      'eth_blockNumber',
      'net_version',
      'eth_getBlockByHash',
      'eth_getBlockByNumber',
      'eth_getBlockTransactionCountByHash',
      'eth_getBlockTransactionCountByNumber',
      'eth_getBlockReceipts',
      'eth_call',
      'eth_estimateGas',
      'eth_gasPrice',
      'eth_maxPriorityFeePerGas',
      'eth_feeHistory',
      'eth_getLogs',
      'eth_getBalance',
      'eth_getStorageAt',
      'eth_getTransactionCount',
      'eth_getCode',
      'eth_sendRawTransaction',
      'eth_getTransactionByHash',
      'eth_getTransactionByBlockHashAndIndex',
      'eth_getTransactionByBlockNumberAndIndex',
      'eth_getTransactionReceipt',
      'eth_getProof',
      'eth_createAccessList',
      'eth_getStorageValues',
      'eth_fillTransaction',
      'eth_config',
      'eth_blobBaseFee',
      'eth_capabilities',
    ]
    const rejected: string[] = []
    let examples = 0
    for (const name of served) {
      for (const example of methodSpecs.get(name)?.examples ?? []) {
        examples++
        const params = example.params.map((p) => p.value)
        const res = await t.call(name, params)
        if (res.error && (res.error.code === -32602 || res.error.code === -32601))
          rejected.push(`${name}(${JSON.stringify(params)}): ${res.error.message}`)
      }
    }
    expect(rejected).toEqual([])
    expect(examples).toBeGreaterThan(20)
  })
})
