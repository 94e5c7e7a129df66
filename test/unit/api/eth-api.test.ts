import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, hexlify } from 'ethers'
import { FakeBackend, GENESIS_TIME, REVERTER, BURNER, TRANSFER_TOPIC, wallet } from './fake-backend.js'
import { startTestServer, type TestServer } from './test-server.js'
import type { BlockJson, ReceiptJson, TransactionJson } from '../../../src/api/eth/format.js'
import type { FeeHistoryJson } from '../../../src/api/eth/fee-history.js'

/** A block asked for with full transactions. */
type FullBlockJson = Omit<BlockJson, 'transactions'> & { transactions: TransactionJson[] }

const hex = (b: Uint8Array): string => hexlify(b)
const ZERO32 = '0x' + '00'.repeat(32)

describe('eth API over HTTP (fake backend)', () => {
  let backend: FakeBackend
  let t: TestServer
  const sender = wallet.address.toLowerCase()

  beforeAll(async () => {
    backend = await FakeBackend.create()
    t = await startTestServer(backend, { api: { logsCap: 10, blockRangeCap: 2 } })
  })
  afterAll(() => t.close())

  describe('web3 and net', () => {
    it('web3_clientVersion', async () => {
      expect(await t.result('web3_clientVersion')).toBe(`nodectl/v0.1.0/${process.platform}-${process.arch}/node${process.versions.node}`)
    })

    it('web3_sha3 hashes the hex-decoded input', async () => {
      expect(await t.result('web3_sha3', ['0x68656c6c6f'])).toBe('0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8')
      expect(await t.result('web3_sha3', ['0x'])).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
      expect((await t.call('web3_sha3', ['hello'])).error).toEqual({
        code: -32602,
        message: 'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes',
      })
    })

    it('net_version, net_listening, net_peerCount', async () => {
      expect(await t.result('net_version')).toBe('9000')
      expect(await t.result('net_listening')).toBe(true)
      expect(await t.result('net_peerCount')).toBe(3)
    })
  })

  describe('chain info', () => {
    it('constants and head', async () => {
      expect(await t.result('eth_chainId')).toBe('0x2328')
      expect(await t.result('eth_protocolVersion')).toBe('0x41')
      expect(await t.result('eth_blockNumber')).toBe('0x3')
      expect(await t.result('eth_mining')).toBe(false)
      expect(await t.result('eth_hashrate')).toBe('0x0')
      expect(await t.result('eth_accounts')).toEqual([])
      expect(await t.result('eth_coinbase')).toBe('0x' + '66'.repeat(20))
    })

    it('eth_syncing', async () => {
      expect(await t.result('eth_syncing')).toBe(false)
      backend.syncing = { startingBlock: 0, currentBlock: 3, highestBlock: 10 }
      expect(await t.result('eth_syncing')).toEqual({ startingBlock: '0x0', currentBlock: '0x3', highestBlock: '0xa' })
      backend.syncing = undefined
    })
  })

  describe('state', () => {
    it('eth_getBalance with default, tag, number and EIP-1898 hash', async () => {
      expect(await t.result('eth_getBalance', [sender])).toBe('0x3635c9adc5dea00000')
      expect(await t.result('eth_getBalance', [sender, 'latest'])).toBe('0x3635c9adc5dea00000')
      expect(await t.result('eth_getBalance', [sender, 'safe'])).toBe('0x3635c9adc5dea00000')
      expect(await t.result('eth_getBalance', [sender, '0x1'])).toBe('0x3635c9adc5dea00000')
      expect(await t.result('eth_getBalance', [sender, { blockHash: hex(backend.blocks[1]!.hash) }])).toBe('0x3635c9adc5dea00000')
      expect(await t.result('eth_getBalance', [sender, hex(backend.blocks[1]!.hash)])).toBe('0x3635c9adc5dea00000')
      expect(await t.result('eth_getBalance', [sender, { blockNumber: '0x2', requireCanonical: true }])).toBe('0x3635c9adc5dea00000')
    })

    it('past the head / unknown hash → geth errors', async () => {
      expect((await t.call('eth_getBalance', [sender, '0x64'])).error).toEqual({ code: -32000, message: 'header not found' })
      expect((await t.call('eth_getBalance', [sender, { blockHash: ZERO32 }])).error).toEqual({
        code: -32000,
        message: 'header for hash not found',
      })
    })

    it('block parameter errors are invalid argument N', async () => {
      expect((await t.call('eth_getBalance', [sender, '1'])).error).toEqual({
        code: -32602,
        message: 'invalid argument 1: hex string without 0x prefix',
      })
      expect((await t.call('eth_getBalance', [sender, '0x01'])).error).toEqual({
        code: -32602,
        message: 'invalid argument 1: hex number with leading zero digits',
      })
      expect((await t.call('eth_getBalance', [sender, { blockHash: hex(backend.blocks[1]!.hash), blockNumber: '0x1' }])).error).toEqual({
        code: -32602,
        message: 'invalid argument 1: cannot specify both BlockHash and BlockNumber, choose one or the other',
      })
      expect((await t.call('eth_getBalance', ['0x1234'])).error).toEqual({
        code: -32602,
        message: 'invalid argument 0: hex string has length 4, want 40 for common.Address',
      })
      expect((await t.call('eth_getBalance', [])).error).toEqual({ code: -32602, message: 'missing value for required argument 0' })
      expect((await t.call('eth_getBalance', [sender, 'latest', 1])).error).toEqual({
        code: -32602,
        message: 'too many arguments, want at most 2',
      })
    })

    it('eth_getTransactionCount: at heights and pending', async () => {
      expect(await t.result('eth_getTransactionCount', [sender, '0x0'])).toBe('0x0')
      expect(await t.result('eth_getTransactionCount', [sender, '0x1'])).toBe('0x2')
      expect(await t.result('eth_getTransactionCount', [sender])).toBe('0x3')
      expect(await t.result('eth_getTransactionCount', [sender, 'pending'])).toBe('0x4')
    })

    it('eth_getCode and eth_getStorageAt', async () => {
      expect(await t.result('eth_getCode', ['0x' + '33'.repeat(20), 'latest'])).toBe('0x6080')
      expect(await t.result('eth_getCode', ['0x' + '99'.repeat(20)])).toBe('0x')
      expect(await t.result('eth_getStorageAt', ['0x' + '33'.repeat(20), '0x1', 'latest'])).toBe('0x' + '00'.repeat(31) + '2a')
      expect(await t.result('eth_getStorageAt', ['0x' + '33'.repeat(20), '0x0'])).toBe(ZERO32)
    })
  })

  describe('blocks', () => {
    it('eth_getBlockByNumber: genesis, latest, full txs, missing → null', async () => {
      const genesis = await t.result<BlockJson>('eth_getBlockByNumber', ['0x0', false])
      expect(genesis.number).toBe('0x0')
      expect(genesis.hash).toBe(hex(backend.blocks[0]!.hash))
      expect(genesis.timestamp).toBe('0x' + GENESIS_TIME.toString(16))
      expect(await t.result('eth_getBlockByNumber', ['earliest', false])).toEqual(genesis)
      const latest = await t.result<BlockJson>('eth_getBlockByNumber', ['latest', false])
      expect(latest.number).toBe('0x3')
      // `pending`: the next block built from the pool, unsealed (eth-pending.ts).
      const pending = await t.result('eth_getBlockByNumber', ['pending', false])
      expect(pending).toMatchObject({
        number: '0x4',
        parentHash: latest.hash,
        hash: null,
        nonce: null,
        miner: null,
        transactions: [...backend.pending.values()].map((tx) => hex(tx.hash)),
      })
      const one = await t.result<BlockJson>('eth_getBlockByNumber', ['0x1', false])
      expect(one.transactions).toEqual(backend.blocks[1]!.transactions.map(hex))
      expect(one).toMatchObject({
        difficulty: '0x0',
        nonce: '0x0000000000000000',
        totalDifficulty: null,
        uncles: [],
        sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
        baseFeePerGas: '0x3b9aca00',
      })
      const full = await t.result<FullBlockJson>('eth_getBlockByNumber', ['0x1', true])
      expect(full.transactions.map((tx: TransactionJson) => tx.hash)).toEqual(one.transactions)
      expect(full.transactions[0].blockTimestamp).toBe(one.timestamp)
      expect(await t.result('eth_getBlockByNumber', ['0x64', false])).toBeNull()
      expect((await t.call('eth_getBlockByNumber', ['0x1'])).error?.message).toBe('missing value for required argument 1')
    })

    it('eth_getBlockByHash', async () => {
      const byHash = await t.result<BlockJson>('eth_getBlockByHash', [hex(backend.blocks[2]!.hash), false])
      expect(byHash.number).toBe('0x2')
      expect(byHash.parentHash).toBe(hex(backend.blocks[1]!.hash))
      expect(await t.result('eth_getBlockByHash', [ZERO32, true])).toBeNull()
    })

    it('transaction and uncle counts', async () => {
      expect(await t.result('eth_getBlockTransactionCountByNumber', ['0x1'])).toBe('0x2')
      expect(await t.result('eth_getBlockTransactionCountByNumber', ['0x64'])).toBeNull()
      expect(await t.result('eth_getBlockTransactionCountByHash', [hex(backend.blocks[2]!.hash)])).toBe('0x1')
      expect(await t.result('eth_getBlockTransactionCountByHash', [ZERO32])).toBeNull()
      expect(await t.result('eth_getUncleCountByBlockNumber', ['latest'])).toBe('0x0')
      expect(await t.result('eth_getUncleCountByBlockHash', [hex(backend.blocks[1]!.hash)])).toBe('0x0')
      expect(await t.result('eth_getUncleByBlockNumberAndIndex', ['0x1', '0x0'])).toBeNull()
      expect(await t.result('eth_getUncleByBlockHashAndIndex', [hex(backend.blocks[1]!.hash), '0x0'])).toBeNull()
    })

    it('eth_getBlockReceipts', async () => {
      const receipts: ReceiptJson[] = await t.result('eth_getBlockReceipts', ['0x1'])
      expect(receipts.map((r) => r.cumulativeGasUsed)).toEqual(['0x5208', '0x11940'])
      expect(await t.result('eth_getBlockReceipts', [hex(backend.blocks[2]!.hash)])).toHaveLength(1)
      expect(await t.result('eth_getBlockReceipts', ['0x64'])).toBeNull()
    })
  })

  describe('transactions', () => {
    it('eth_getTransactionByHash: mined (each type) and pending', async () => {
      const [legacy, dynamic] = backend.blocks[1]!.transactions.map(hex)
      const tx0 = await t.result<TransactionJson>('eth_getTransactionByHash', [legacy])
      expect(tx0).toMatchObject({
        type: '0x0',
        blockNumber: '0x1',
        transactionIndex: '0x0',
        chainId: '0x2328',
        from: sender,
        value: '0xde0b6b3a7640000',
        gasPrice: '0x77359400',
      })
      expect(BigInt(tx0.v)).toBe(9000n * 2n + 35n + (BigInt(tx0.v) % 2n === 0n ? 1n : 0n))
      expect(tx0.yParity).toBeUndefined()
      const tx1 = await t.result<TransactionJson>('eth_getTransactionByHash', [dynamic])
      expect(tx1).toMatchObject({ type: '0x2', maxFeePerGas: '0xb2d05e00', maxPriorityFeePerGas: '0x1dcd6500', gasPrice: '0x59682f00' })
      expect(tx1.yParity).toBe(tx1.v)
      expect(tx1.accessList).toHaveLength(1)
      const create = await t.result('eth_getTransactionByHash', [hex(backend.blocks[2]!.transactions[0]!)])
      expect(create).toMatchObject({ type: '0x1', to: null, accessList: [] })
      const pendingHash = [...backend.pending.keys()][0]!
      const pending = await t.result('eth_getTransactionByHash', [pendingHash])
      expect(pending).toMatchObject({
        blockHash: null,
        blockNumber: null,
        transactionIndex: null,
        blockTimestamp: null,
        gasPrice: '0xee6b2800',
      })
      expect(await t.result('eth_getTransactionByHash', [ZERO32])).toBeNull()
    })

    it('by block and index', async () => {
      const byHash = await t.result<TransactionJson>('eth_getTransactionByBlockHashAndIndex', [hex(backend.blocks[1]!.hash), '0x1'])
      expect(byHash.hash).toBe(hex(backend.blocks[1]!.transactions[1]!))
      const byNumber = await t.result<TransactionJson>('eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x0'])
      expect(byNumber.hash).toBe(hex(backend.blocks[1]!.transactions[0]!))
      expect(await t.result('eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x5'])).toBeNull()
      expect(await t.result('eth_getTransactionByBlockNumberAndIndex', ['0x64', '0x0'])).toBeNull()
    })

    it('eth_getTransactionReceipt: fields, contract creation, pending → null', async () => {
      const receipt = await t.result<ReceiptJson>('eth_getTransactionReceipt', [hex(backend.blocks[1]!.transactions[1]!)])
      expect(receipt).toMatchObject({
        status: '0x1',
        type: '0x2',
        gasUsed: '0xc738',
        contractAddress: null,
        effectiveGasPrice: '0x59682f00',
      })
      expect(receipt.logs[0]).toMatchObject({
        logIndex: '0x0',
        transactionIndex: '0x1',
        removed: false,
        topics: [hex(TRANSFER_TOPIC), expect.any(String), expect.any(String)],
      })
      const create = await t.result('eth_getTransactionReceipt', [hex(backend.blocks[2]!.transactions[0]!)])
      expect(create).toMatchObject({ to: null, contractAddress: '0x' + 'ab'.repeat(20), type: '0x1', effectiveGasPrice: '0x59682f00' })
      expect(await t.result('eth_getTransactionReceipt', [[...backend.pending.keys()][0]])).toBeNull()
    })

    it('eth_sendRawTransaction: hash, pool errors as -32000, bad params', async () => {
      const raw = await wallet.signTransaction({
        chainId: 9000n,
        type: 2,
        to: '0x' + '22'.repeat(20),
        nonce: 4,
        gasLimit: 21000n,
        maxFeePerGas: 5n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
      })
      const hash = await t.result('eth_sendRawTransaction', [raw])
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
      expect((await t.result<TransactionJson>('eth_getTransactionByHash', [hash])).blockHash).toBeNull()
      expect((await t.call('eth_sendRawTransaction', [raw])).error).toEqual({ code: -32000, message: 'already known' })
      expect((await t.call('eth_sendRawTransaction', [backend.raws.legacy!.replace(/..$/, '00')])).error?.code).toBe(-32000)
      expect((await t.call('eth_sendRawTransaction', ['0xf'])).error?.code).toBe(-32602)
    })
  })

  describe('execution', () => {
    it('eth_call returns data and passes parsed args, height and caps', async () => {
      const out = await t.result('eth_call', [
        { from: sender, to: '0x' + '33'.repeat(20), data: '0x70a08231', gas: '0x5208', value: '0x0' },
        '0x2',
      ])
      expect(out).toBe('0x' + '00'.repeat(31) + '02')
      const seen = backend.calls.at(-1)!
      expect(seen.height).toBe(2)
      expect(seen.args.gas).toBe(21000n)
      expect(hex(seen.args.input!)).toBe('0x70a08231')
      expect(seen.options).toEqual({ gasCap: 25_000_000n, timeout: 5000 })
      expect(await t.result('eth_call', [{ to: '0x' + '33'.repeat(20), input: '0x01', gasLimit: '0x5208' }])).toBe(
        '0x' + '00'.repeat(31) + '03',
      )
      expect(backend.calls.at(-1)!.args.gas).toBe(21000n)
    })

    it('eth_call revert → code 3 with data and decoded reason', async () => {
      const res = await t.call('eth_call', [{ to: hex(REVERTER) }])
      const data = '0x08c379a0' + AbiCoder.defaultAbiCoder().encode(['string'], ['nope']).slice(2)
      expect(res.error).toEqual({ code: 3, message: 'execution reverted: nope', data })
      expect((await t.call('eth_call', [{ to: hex(BURNER) }])).error).toEqual({ code: -32000, message: 'out of gas' })
    })

    it('call args validation', async () => {
      const to = '0x' + '33'.repeat(20)
      expect((await t.call('eth_call', [{ to, gas: '0x1', gasLimit: '0x2' }])).error).toEqual({
        code: -32602,
        message: "invalid argument 0: both 'gas' and 'gasLimit' are set and not equal",
      })
      expect((await t.call('eth_call', [{ to, data: '0x01', input: '0x02' }])).error?.message).toContain(
        "both 'data' and 'input' are set and not equal",
      )
      expect((await t.call('eth_call', [{ to, gasPrice: '0x1', maxFeePerGas: '0x2' }])).error?.message).toBe(
        'invalid argument 0: both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
      )
      expect((await t.call('eth_call', [{ to, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }])).error?.message).toBe(
        'invalid argument 0: maxFeePerGas (1) < maxPriorityFeePerGas (2)',
      )
      expect((await t.call('eth_call', [{ to, gas: '5208' }])).error?.message).toBe(
        'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go struct field TransactionArgs.gas of type ' +
          'hexutil.Uint64',
      )
      expect((await t.call('eth_call', [{ to: '0x12' }])).error?.message).toBe(
        'invalid argument 0: hex string has length 2, want 40 for common.Address',
      )
      expect((await t.call('eth_call', [{ to }, 'latest', { [to]: { balance: '0x1' } }])).error?.message).toBe(
        'invalid argument 2: state overrides are not supported',
      )
      expect(await t.result('eth_call', [{ to }, 'latest', {}])).toMatch(/^0x/)
    })

    it('eth_estimateGas', async () => {
      expect(await t.result('eth_estimateGas', [{ from: sender, to: '0x' + '22'.repeat(20), value: '0x1' }])).toBe('0x5208')
      expect(await t.result('eth_estimateGas', [{ from: sender, data: '0x0102' }, 'latest'])).toBe('0x5228')
      expect((await t.call('eth_estimateGas', [{ to: hex(REVERTER) }])).error?.code).toBe(3)
    })
  })

  describe('fees', () => {
    it('eth_gasPrice = latest base fee + tip; eth_maxPriorityFeePerGas', async () => {
      expect(await t.result('eth_gasPrice')).toBe('0x' + (1_000_000_000n + 100_000_000n).toString(16))
      expect(await t.result('eth_maxPriorityFeePerGas')).toBe('0x5f5e100')
    })

    it('eth_feeHistory shapes', async () => {
      const h = await t.result<FeeHistoryJson>('eth_feeHistory', ['0x2', 'latest', [25, 75]])
      expect(h.oldestBlock).toBe('0x2')
      expect(h.baseFeePerGas).toHaveLength(3)
      expect(h.gasUsedRatio).toEqual([120000 / 30_000_000, 0])
      expect(h.reward).toEqual([
        ['0x1dcd6500', '0x1dcd6500'],
        ['0x0', '0x0'],
      ])
      const decimal = await t.result<FeeHistoryJson>('eth_feeHistory', [4, '0x1', []])
      expect(decimal.oldestBlock).toBe('0x0')
      expect(decimal.gasUsedRatio).toHaveLength(2)
      expect(decimal.reward).toBeUndefined()
      const blockOne = await t.result<FeeHistoryJson>('eth_feeHistory', ['1', '0x1', [0, 50, 100]])
      expect(blockOne.reward).toEqual([['0x1dcd6500', '0x1dcd6500', '0x3b9aca00']])
      expect((await t.call('eth_feeHistory', ['0x1', 'latest', [50, 10]])).error).toEqual({
        code: -32000,
        message: 'invalid reward percentile: #0:50.000000 >= #1:10.000000',
      })
      expect((await t.call('eth_feeHistory', ['0x1', '0x64', []])).error).toEqual({
        code: -32000,
        message: 'request beyond head block: requested 100, head 3',
      })
      expect((await t.call('eth_feeHistory', ['x', 'latest'])).error?.message).toBe(
        'invalid argument 0: invalid hex or decimal integer "x"',
      )
    })

    it('eth_feeHistory clamps to feehistory-cap', async () => {
      const capped = await startTestServer(backend, { api: { feeHistoryCap: 2 } })
      try {
        const h = await capped.result<FeeHistoryJson>('eth_feeHistory', ['0x64', 'latest', []])
        expect(h.gasUsedRatio).toHaveLength(2)
        expect(h.oldestBlock).toBe('0x2')
      } finally {
        await capped.close()
      }
    })
  })

  describe('logs', () => {
    const token = '0x' + '33'.repeat(20)
    it('eth_getLogs by range, address, topics (wildcards and OR)', async () => {
      const all = await t.result('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }])
      expect(all).toHaveLength(2)
      expect(await t.result('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2', address: token }])).toHaveLength(1)
      expect(await t.result('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2', address: [token, '0x' + 'ab'.repeat(20)] }])).toHaveLength(
        2,
      )
      expect(await t.result('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2', topics: [hex(TRANSFER_TOPIC)] }])).toHaveLength(1)
      expect(
        await t.result('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2', topics: [null, '0x' + '00'.repeat(12) + sender.slice(2)] }]),
      ).toHaveLength(1)
      expect(await t.result('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2', topics: [[ZERO32, hex(TRANSFER_TOPIC)]] }])).toHaveLength(1)
      expect(await t.result('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2', topics: [ZERO32] }])).toHaveLength(0)
      expect(await t.result('eth_getLogs', [{ blockHash: hex(backend.blocks[2]!.hash) }])).toHaveLength(1)
      expect(await t.result('eth_getLogs', [{}])).toEqual([]) // default latest..latest: block 3 has none
    })

    it('eth_getLogs errors', async () => {
      expect((await t.call('eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x1' }])).error).toEqual({
        code: -32000,
        message: 'invalid block range params',
      })
      expect((await t.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x3' }])).error).toEqual({
        code: -32000,
        message: 'maximum [from, to] blocks distance: 2',
      })
      expect((await t.call('eth_getLogs', [{ blockHash: hex(backend.blocks[1]!.hash), fromBlock: '0x1' }])).error).toEqual({
        code: -32602,
        message: 'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
      })
      expect((await t.call('eth_getLogs', [{ blockHash: ZERO32 }])).error).toEqual({ code: -32000, message: 'unknown block' })
      expect((await t.call('eth_getLogs', [{ topics: [null, null, null, null, null] }])).error?.message).toBe(
        'invalid argument 0: exceed max topics',
      )
      expect((await t.call('eth_getLogs', [{ address: '0x12' }])).error?.message).toBe(
        'invalid argument 0: invalid address: hex has invalid length 1 after decoding; expected 20 for address',
      )
    })

    it('eth_getLogs logs-cap', async () => {
      const small = await startTestServer(backend, { api: { logsCap: 1 } })
      try {
        expect((await small.call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }])).error).toEqual({
          code: -32000,
          message: 'query returned more than 1 results',
        })
      } finally {
        await small.close()
      }
    })
  })

  describe('transport-level behaviour of the eth tables', () => {
    it('eth_subscribe / eth_unsubscribe over HTTP', async () => {
      expect((await t.call('eth_subscribe', ['newHeads'])).error).toEqual({ code: -32000, message: 'notifications not supported' })
      expect((await t.call('eth_unsubscribe', ['0x1'])).error).toEqual({ code: -32000, message: 'notifications not supported' })
    })

    it('a disabled namespace answers like an unknown method', async () => {
      const ethOnly = await startTestServer(backend, { dispatcher: { namespaces: ['eth'] } })
      try {
        expect((await ethOnly.call('web3_clientVersion')).error).toEqual({
          code: -32601,
          message: 'the method web3_clientVersion does not exist/is not available',
        })
        expect((await ethOnly.call('personal_listAccounts')).error).toEqual({
          code: -32601,
          message: 'the method personal_listAccounts does not exist/is not available',
        })
        expect(await ethOnly.result('eth_chainId')).toBe('0x2328')
      } finally {
        await ethOnly.close()
      }
    })

    it('string ids, missing jsonrpc, batches with notifications over HTTP', async () => {
      const res = await t.post(
        JSON.stringify([
          { id: 'a', method: 'eth_blockNumber' },
          { jsonrpc: '2.0', method: 'eth_chainId' },
          { jsonrpc: '2.0', id: 2, method: 'net_version' },
        ]),
      )
      expect(await res.json()).toEqual([
        { jsonrpc: '2.0', id: 'a', result: '0x3' },
        { jsonrpc: '2.0', id: 2, result: '9000' },
      ])
      const empty = await t.post('[]')
      expect(await empty.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } })
    })

    it('batch-request-limit', async () => {
      const limited = await startTestServer(backend, { dispatcher: { batchRequestLimit: 2 } })
      try {
        const res = await limited.post(JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber' }))))
        expect(await res.json()).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'batch too large' } }])
      } finally {
        await limited.close()
      }
    })
  })
})
