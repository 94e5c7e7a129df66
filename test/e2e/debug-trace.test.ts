/**
 * The debug namespace on a real dev node (api/debug, evm/tracing): geth's struct logger through
 * debug_traceTransaction (a contract call, a reverted one, the logger options), replay of a block's
 * earlier transactions, block traces, debug_traceCall with state and block overrides, the timeout, the
 * tracer lookup, the raw-data getters (checked against the execution-apis schemas and against the
 * block's roots), and block production while a long trace runs. Struct-logger results are compared
 * with golden files (test/fixtures/golden/debug/); regenerate with
 * `UPDATE_GOLDEN=1 npx vitest run test/e2e/debug-trace.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, Interface, Wallet, getCreateAddress, type TransactionRequest } from 'ethers'
import { RLP } from '@ethereumjs/rlp'
import { compileContracts } from '../helpers/solidity.js'
import { keccak256 } from '../../src/crypto/index.js'
import { orderedTrieRoot } from '../../src/evm/store/ordered-trie.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToHex, hexToBytes } from '../../src/primitives/hex.js'
import { componentValidator } from '../helpers/execution-apis.js'
import { readGolden } from '../helpers/golden.js'
import type { BlockJson, ReceiptJson } from '../../src/api/eth/format.js'
import type { StructLoggerResult } from '../../src/evm/tracing/struct-logger.js'
import type { CallFrameJson } from '../../src/evm/tracing/native/call-tracer.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'

const CHAIN_ID = 31337n
const GWEI = 10n ** 9n
const [A0, A1] = devAccounts(2).map((a) => new Wallet(a.privateKey))
/** Fixed fee fields (no estimation): the signed bytes, hence the traces, are the same every run. */
const FEES = { type: 2, chainId: CHAIN_ID, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI } as const
const STORE_SLOT_VALUE = '0x' + '00'.repeat(32)
const UNKNOWN_HASH = '0x' + '11'.repeat(32)
/** Spin rounds of the long transaction (about 51,000 opcodes per 1,000 rounds: seconds of tracing). */
const SPIN_ROUNDS = 30_000n

const { Store } = compileContracts('Store.sol')
const { Token } = compileContracts('Token.sol')
const { Spin } = compileContracts('Spin.sol')
const store = new Interface(Store!.abi as never)
const token = new Interface(Token!.abi as never)
const spin = new Interface(Spin!.abi as never)

const opcodeTrace = componentValidator('OpcodeTransactionTrace')
const opcodeBlockEntry = componentValidator('OpcodeBlockTransactionTrace')
const bytes = componentValidator('bytes')

/** One entry of a block trace whose transaction traced to `R`. */
interface TracedTx<R> {
  txHash: string
  result: R
}

/** Sends a JSON-RPC batch and returns the replies, results of shape `R`, in request order. */
async function batch<R>(url: string, calls: [string, unknown[]][]): Promise<{ result?: R; error?: { code: number; message: string } }[]> {
  const body = calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return ((await res.json()) as { id: number }[]).sort((x, y) => x.id - y.id) as never
}

describe('debug namespace on a dev node', () => {
  let t: TestNode
  let nonce = 0
  const addr = { store: '', token: '', spin: '' }
  const tx = { set: '', revert: '', outOfGas: '', approve: '', transferFrom: '', spin: '' }
  let pairBlock = ''

  /** The result of a call, of the shape `T` the caller expects; throws on an error reply. */
  const call = async <T>(method: string, params: unknown[]): Promise<T> => {
    const r = await rpc(t.url, method, params)
    if (r.error) throw new Error(`${method}: ${r.error.message}`)
    return r.result as T
  }
  const traceTx = (params: unknown[]): Promise<StructLoggerResult> => call('debug_traceTransaction', params)
  const receiptOf = (hash: string): Promise<ReceiptJson> =>
    waitFor(async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [hash])).result, 30_000, `receipt of ${hash}`)
  const sign = (request: TransactionRequest): Promise<string> => A0!.signTransaction({ ...FEES, nonce: nonce++, ...request })
  const send = async (request: TransactionRequest): Promise<string> => {
    const hash = await call<string>('eth_sendRawTransaction', [await sign(request)])
    await receiptOf(hash)
    return hash
  }
  const deploy = async (bytecode: string): Promise<string> => {
    const address = getCreateAddress({ from: A0!.address, nonce }).toLowerCase()
    await send({ data: bytecode, gasLimit: 2_000_000n })
    return address
  }
  const expectGolden = async (name: string, value: unknown): Promise<void> => {
    const { expected, actual } = await readGolden(`debug/${name}`, value)
    expect(actual).toBe(expected)
  }

  beforeAll(async () => {
    t = await startTestNode()
    addr.store = await deploy(Store!.bytecode + store.encodeDeploy([7n]).slice(2))
    addr.token = await deploy(Token!.bytecode + token.encodeDeploy([1_000_000n]).slice(2))
    addr.spin = await deploy(Spin!.bytecode)
    tx.set = await send({ to: addr.store, gasLimit: 200_000n, data: store.encodeFunctionData('set', [42n, 'traced']) })
    tx.revert = await send({ to: addr.store, gasLimit: 200_000n, data: store.encodeFunctionData('set', [13n, 'unlucky']) })
    tx.outOfGas = await send({ to: addr.spin, gasLimit: 60_000n, data: spin.encodeFunctionData('spin', [1_000n]) })
    // Two transactions of one block, the second depending on the first: transferFrom spends the
    // allowance approve grants. The later nonce goes first, so neither can be proposed without the other.
    const approve = await sign({ to: addr.token, gasLimit: 100_000n, data: token.encodeFunctionData('approve', [A0!.address, 500n]) })
    const transferFrom = await sign({
      to: addr.token,
      gasLimit: 100_000n,
      data: token.encodeFunctionData('transferFrom', [A0!.address, A1!.address, 300n]),
    })
    const [second, first] = await batch<string>(t.url, [
      ['eth_sendRawTransaction', [transferFrom]],
      ['eth_sendRawTransaction', [approve]],
    ])
    tx.transferFrom = second!.result!
    tx.approve = first!.result!
    const [r1, r2] = [await receiptOf(tx.approve), await receiptOf(tx.transferFrom)]
    expect(r1.blockNumber).toBe(r2.blockNumber)
    expect([r1.transactionIndex, r2.transactionIndex]).toEqual(['0x0', '0x1'])
    expect(r2.status).toBe('0x1')
    pairBlock = r1.blockNumber
    // a lower fee cap keeps the 25M-gas transaction under the node's 1-ether txfee-cap
    tx.spin = await send({
      to: addr.spin,
      gasLimit: 25_000_000n,
      maxFeePerGas: 20n * GWEI,
      data: spin.encodeFunctionData('spin', [SPIN_ROUNDS]),
    })
  }, 120_000)
  afterAll(async () => {
    await t?.destroy()
  })

  describe('struct logger (the default tracer)', () => {
    it('traces a contract call in geth encoding: stack, storage at SSTORE, receipt gas, golden file', async () => {
      const trace = await traceTx([tx.set])
      expect(opcodeTrace(trace)).toBeUndefined()
      const receipt = await receiptOf(tx.set)
      expect(trace).toMatchObject({ gas: Number(receipt.gasUsed), failed: false, returnValue: '0x' })
      expect(Object.keys(trace)).toEqual(['gas', 'failed', 'returnValue', 'structLogs'])
      const logs = trace.structLogs
      // The first opcode sees all the gas left after the intrinsic gas, and an empty stack.
      expect(logs[0]).toEqual({ pc: 0, op: 'PUSH1', gas: logs[0].gas, gasCost: 3, depth: 1, stack: [] })
      expect(logs[1].stack).toEqual(['0x80'])
      for (const entry of logs) {
        expect(Object.keys(entry).every((k) => ['pc', 'op', 'gas', 'gasCost', 'depth', 'stack', 'storage', 'refund'].includes(k))).toBe(
          true,
        )
        expect(entry.depth).toBe(1)
        for (const word of entry.stack!) expect(word).toMatch(/^0x(0|[1-9a-f][0-9a-f]*)$/)
      }
      // Storage only on SLOAD/SSTORE; the SSTORE of `value = 42` shows slot 0 → 42.
      expect(logs.filter((e) => e.storage).every((e) => e.op === 'SLOAD' || e.op === 'SSTORE')).toBe(true)
      const sstore = logs.find((e) => e.op === 'SSTORE')
      expect(sstore!.storage).toEqual({ [STORE_SLOT_VALUE]: '0x' + '00'.repeat(31) + '2a' })
      expect(logs.find((e) => e.op === 'LOG3')).toBeDefined()
      expect(logs.at(-1)!.op).toBe('STOP')
      // gas falls by each opcode's cost
      for (let i = 1; i < logs.length; i++)
        if (logs[i - 1].op.startsWith('PUSH')) expect(logs[i].gas).toBe(logs[i - 1].gas - logs[i - 1].gasCost)
      await expectGolden('struct-logger-call', trace)
    })

    it('traces a reverted call: failed, the revert data as returnValue, REVERT last without an error field', async () => {
      const trace = await traceTx([tx.revert])
      expect(opcodeTrace(trace)).toBeUndefined()
      const receipt = await receiptOf(tx.revert)
      expect(receipt.status).toBe('0x0')
      expect(trace.failed).toBe(true)
      expect(trace.gas).toBe(Number(receipt.gasUsed))
      const reason = new Interface(['function Error(string)']).encodeFunctionData('Error', ['unlucky number'])
      expect(trace.returnValue).toBe(reason)
      const last = trace.structLogs.at(-1)!
      expect(last.op).toBe('REVERT')
      expect(last.error).toBeUndefined()
      await expectGolden('struct-logger-revert', trace)
    })

    it('marks the opcode that ran out of gas with `error`, as geth (the failure comes before the opcode runs)', async () => {
      const trace = await traceTx([tx.outOfGas])
      expect(opcodeTrace(trace)).toBeUndefined()
      expect((await receiptOf(tx.outOfGas)).status).toBe('0x0')
      expect(trace).toMatchObject({ gas: 60_000, failed: true, returnValue: '0x' })
      const last = trace.structLogs.at(-1)!
      expect(last.error).toBe('out of gas')
      expect(last.gasCost).toBeGreaterThan(last.gas)
      expect(trace.structLogs.filter((e) => 'error' in e)).toHaveLength(1)
      const frame = await call('debug_traceTransaction', [tx.outOfGas, { tracer: 'callTracer' }])
      expect(frame).toMatchObject({ type: 'CALL', error: 'out of gas', gasUsed: '0xea60' })
    })

    it('honours limit, disableStack, disableStorage, enableMemory and enableReturnData', async () => {
      const full = (await traceTx([tx.set])).structLogs
      const limited = await traceTx([tx.set, { limit: 5 }])
      expect(limited.structLogs).toEqual(full.slice(0, 5))
      const bare = (await traceTx([tx.set, { disableStack: true, disableStorage: true }])).structLogs
      expect(bare).toHaveLength(full.length)
      expect(bare.some((e) => 'stack' in e || 'storage' in e)).toBe(false)
      const withMemory = await traceTx([tx.set, { enableMemory: true, enableReturnData: true }])
      expect(opcodeTrace(withMemory)).toBeUndefined()
      const logs = withMemory.structLogs
      // memory is absent while empty, then 0x-prefixed 32-byte words; MSTORE(0x40, 0x80) is the first write
      expect(logs[0].memory).toBeUndefined()
      const afterMstore = logs[logs.findIndex((e) => e.op === 'MSTORE') + 1]
      expect(afterMstore.memory).toEqual(['0x' + '00'.repeat(32), '0x' + '00'.repeat(32), '0x' + '00'.repeat(31) + '80'])
      for (const e of logs) for (const word of e.memory ?? []) expect(word).toMatch(/^0x[0-9a-f]{64}$/)
    })

    it('replays the earlier transactions of the block: the second transaction sees the first one’s state', async () => {
      const receipt = await receiptOf(tx.transferFrom)
      const trace = await traceTx([tx.transferFrom])
      expect(trace.failed).toBe(false)
      expect(trace.gas).toBe(Number(receipt.gasUsed))
      // Without approve's allowance, transferFrom would revert with "insufficient allowance".
      expect(trace.structLogs.some((e) => e.op === 'REVERT')).toBe(false)
      const allowanceRead = trace.structLogs.find(
        (e) => e.op === 'SLOAD' && Object.values(e.storage!).includes('0x' + 500n.toString(16).padStart(64, '0')),
      )
      expect(allowanceRead).toBeDefined()
    })
  })

  describe('block traces', () => {
    it('debug_traceBlockByNumber and debug_traceBlockByHash give [{txHash, result}] in block order', async () => {
      const byNumber = await call<TracedTx<StructLoggerResult>[]>('debug_traceBlockByNumber', [pairBlock])
      expect(byNumber.map((r) => r.txHash)).toEqual([tx.approve, tx.transferFrom])
      for (const entry of byNumber) {
        expect(opcodeBlockEntry(entry)).toBeUndefined()
        expect(Object.keys(entry)).toEqual(['txHash', 'result'])
        expect(entry.result.gas).toBe(Number((await receiptOf(entry.txHash)).gasUsed))
      }
      expect(byNumber[1]!.result).toEqual(await traceTx([tx.transferFrom]))
      const block = await call<BlockJson>('eth_getBlockByNumber', [pairBlock, false])
      expect(await call('debug_traceBlockByHash', [block.hash])).toEqual(byNumber)
      const calls = await call<TracedTx<CallFrameJson>[]>('debug_traceBlockByNumber', [pairBlock, { tracer: 'callTracer' }])
      expect(calls.map((r) => [r.txHash, r.result.type, r.result.to])).toEqual([
        [tx.approve, 'CALL', addr.token],
        [tx.transferFrom, 'CALL', addr.token],
      ])
    })

    it('a failed trace in a block is {txHash, error}; the others still trace', async () => {
      const entries = await call('debug_traceBlockByNumber', [pairBlock, { timeout: '1ns' }])
      expect(entries).toEqual([
        { txHash: tx.approve, error: 'execution timeout' },
        { txHash: tx.transferFrom, error: 'execution timeout' },
      ])
    })

    it('refuses genesis, unknown blocks and unknown transactions with geth’s errors', async () => {
      expect((await rpc(t.url, 'debug_traceBlockByNumber', ['0x0'])).error).toEqual({ code: -32000, message: 'genesis is not traceable' })
      expect((await rpc(t.url, 'debug_traceBlockByNumber', ['0xffffff'])).error).toEqual({
        code: -32000,
        message: 'block #16777215 not found',
      })
      expect((await rpc(t.url, 'debug_traceBlockByHash', [UNKNOWN_HASH])).error).toEqual({
        code: -32000,
        message: `block ${UNKNOWN_HASH} not found`,
      })
      expect((await rpc(t.url, 'debug_traceTransaction', [UNKNOWN_HASH])).error).toEqual({ code: -32000, message: 'transaction not found' })
    })
  })

  describe('debug_traceCall', () => {
    const storeValue = store.encodeFunctionData('value')

    it('traces a call on the state after a block, as a transaction (intrinsic gas included)', async () => {
      const trace = await call<StructLoggerResult>('debug_traceCall', [{ from: A0!.address, to: addr.store, data: storeValue }, 'latest'])
      expect(opcodeTrace(trace)).toBeUndefined()
      expect(trace.failed).toBe(false)
      expect(BigInt(trace.returnValue)).toBe(42n)
      expect(trace.gas).toBeGreaterThan(21_000)
      const callTrace = await call('debug_traceCall', [
        { from: A0!.address, to: addr.store, data: storeValue },
        'latest',
        { tracer: 'callTracer' },
      ])
      expect(callTrace).toMatchObject({
        type: 'CALL',
        from: A0!.address.toLowerCase(),
        to: addr.store,
        output: '0x' + 42n.toString(16).padStart(64, '0'),
      })
      // the state after an earlier block: before `set(42)`, the constructor's 7
      const deployed = await receiptOf(tx.set)
      const before = await call<StructLoggerResult>('debug_traceCall', [
        { to: addr.store, data: storeValue },
        '0x' + (BigInt(deployed.blockNumber) - 1n).toString(16),
      ])
      expect(BigInt(before.returnValue)).toBe(7n)
    })

    it('applies stateOverrides: stateDiff, state, code, balance', async () => {
      const args = { to: addr.store, data: storeValue }
      const slot0 = '0x' + '00'.repeat(32)
      const word = (n: bigint): string => '0x' + n.toString(16).padStart(64, '0')
      const diff = await call<StructLoggerResult>('debug_traceCall', [
        args,
        'latest',
        { stateOverrides: { [addr.store]: { stateDiff: { [slot0]: word(99n) } } } },
      ])
      expect(BigInt(diff.returnValue)).toBe(99n)
      // A fresh address with Store's runtime code and a whole storage of its own.
      const fresh = '0x' + 'ab'.repeat(20)
      const code = await call('eth_getCode', [addr.store, 'latest'])
      const replaced = await call<StructLoggerResult>('debug_traceCall', [
        { to: fresh, data: storeValue },
        'latest',
        { stateOverrides: { [fresh]: { code, state: { [slot0]: word(5n) } } } },
      ])
      expect(BigInt(replaced.returnValue)).toBe(5n)
      // A sender without funds paying for gas fails, unless its balance is overridden.
      const poor = '0x' + 'cd'.repeat(20)
      const paid = { from: poor, to: addr.store, data: storeValue, gas: '0x30000', gasPrice: '0x' + (200n * GWEI).toString(16) }
      const refused = await rpc(t.url, 'debug_traceCall', [paid, 'latest'])
      expect(refused.error?.message).toMatch(/^tracing failed: insufficient funds for gas \* price \+ value: address 0x[cC][dD]/)
      const funded = await call<StructLoggerResult>('debug_traceCall', [
        paid,
        'latest',
        { stateOverrides: { [poor]: { balance: '0xde0b6b3a7640000' } } },
      ])
      expect(funded.failed).toBe(false)
      const both = await rpc(t.url, 'debug_traceCall', [args, 'latest', { stateOverrides: { [addr.store]: { state: {}, stateDiff: {} } } }])
      expect(both.error?.message).toMatch(/^account 0x[0-9a-fA-F]{40} has both 'state' and 'stateDiff'$/)
    })

    it('applies blockOverrides: number, time, fee recipient, base fee, prevRandao', async () => {
      const coinbase = '0x' + '77'.repeat(20)
      const overrides = { number: '0x1234', time: '0x64', feeRecipient: coinbase, baseFeePerGas: '0x7', gasLimit: '0x1c9c380' }
      const trace = await call<StructLoggerResult>('debug_traceCall', [
        { from: A0!.address, to: addr.store, data: store.encodeFunctionData('blockInfo'), gasPrice: '0x9' },
        'latest',
        { blockOverrides: overrides },
      ])
      const [number, timestamp, basefee, miner, chainid] = AbiCoder.defaultAbiCoder().decode(
        ['uint256', 'uint256', 'uint256', 'address', 'uint256'],
        trace.returnValue,
      )
      expect([number, timestamp, basefee, (miner as string).toLowerCase(), chainid]).toEqual([0x1234n, 100n, 7n, coinbase, CHAIN_ID])
      // PREVRANDAO (geth's DIFFICULTY) returned by code put in place with a state override
      const random = '0x' + '42'.repeat(32)
      const reader = '0x' + 'ef'.repeat(20)
      const code = '0x4460005260206000f3' // DIFFICULTY PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
      const withRandom = await call<StructLoggerResult>('debug_traceCall', [
        { to: reader },
        'latest',
        { blockOverrides: { prevRandao: random }, stateOverrides: { [reader]: { code } } },
      ])
      expect(withRandom.returnValue).toBe(random)
      expect(withRandom.structLogs[0]).toMatchObject({ pc: 0, op: 'DIFFICULTY', gasCost: 2 })
    })

    it('refuses pending and unknown blocks', async () => {
      expect((await rpc(t.url, 'debug_traceCall', [{ to: addr.store }, 'pending'])).error).toEqual({
        code: -32000,
        message: 'tracing on top of pending is not supported',
      })
      expect((await rpc(t.url, 'debug_traceCall', [{ to: addr.store }, '0xffffff'])).error).toEqual({
        code: -32000,
        message: 'block #16777215 not found',
      })
    })
  })

  describe('trace config', () => {
    it('stops a trace past its timeout with `execution timeout`', async () => {
      expect((await rpc(t.url, 'debug_traceTransaction', [tx.set, { timeout: '1ns' }])).error).toEqual({
        code: -32000,
        message: 'execution timeout',
      })
      expect((await rpc(t.url, 'debug_traceTransaction', [tx.set, { tracer: 'callTracer', timeout: '1ns' }])).error).toEqual({
        code: -32000,
        message: 'execution timeout',
      })
      expect(
        (await rpc<StructLoggerResult>(t.url, 'debug_traceTransaction', [tx.set, { timeout: '30s', reexec: 128 }])).result!.failed,
      ).toBe(false)
    })

    it('refuses unknown tracers and bad options', async () => {
      expect((await rpc(t.url, 'debug_traceTransaction', [tx.set, { tracer: 'nopeTracer' }])).error).toEqual({
        code: -32000,
        message: 'tracer not found',
      })
      expect((await rpc(t.url, 'debug_traceTransaction', [tx.set, { timeout: 'soon' }])).error).toEqual({
        code: -32602,
        message: 'invalid argument 1: time: invalid duration "soon"',
      })
      expect((await rpc(t.url, 'debug_traceTransaction', [tx.set, { limit: '5' }])).error).toEqual({
        code: -32602,
        message: 'invalid argument 1: json: cannot unmarshal string into Go struct field TraceConfig.limit of type int',
      })
      expect(
        (await rpc(t.url, 'debug_traceTransaction', [tx.set, { tracer: 'callTracer', tracerConfig: { withLog: 'yes' } }])).error?.code,
      ).toBe(-32000)
      expect((await rpc(t.url, 'debug_traceTransaction', [tx.set, { tracer: 'noopTracer' }])).result).toEqual({})
    })

    it('runs JavaScript tracer programs and geth’s named JavaScript tracers', async () => {
      const steps = (await traceTx([tx.set])).structLogs.length
      const program = '{count: 0, step: function () { this.count++ }, fault: function () {}, result: function () { return this.count }}'
      expect(await call('debug_traceTransaction', [tx.set, { tracer: program }])).toBe(steps)
      expect(await call('debug_traceTransaction', [tx.set, { tracer: 'opcountTracer' }])).toBe(steps)
      const broken = await rpc(t.url, 'debug_traceTransaction', [tx.set, { tracer: '{step: function () {' }])
      expect(broken.error?.code).toBe(-32000)
    })
  })

  describe('raw data', () => {
    it('debug_getRawHeader / getRawBlock / getRawReceipts / getRawTransaction: valid bytes that match the block', async () => {
      const block = await call<BlockJson>('eth_getBlockByNumber', [pairBlock, false])
      const header = await call<string>('debug_getRawHeader', [pairBlock])
      const raw = await call<string>('debug_getRawBlock', [block.hash])
      const receipts = await call<string[]>('debug_getRawReceipts', [pairBlock])
      for (const value of [header, raw, ...receipts]) expect(bytes(value)).toBeUndefined()
      const fields = RLP.decode(hexToBytes(header)) as Uint8Array[]
      expect(fields).toHaveLength(20)
      expect(bytesToHex(keccak256(hexToBytes(header)))).toBe(block.hash)
      expect([fields[0], fields[3], fields[4], fields[5], fields[6]].map(bytesToHex)).toEqual([
        block.parentHash,
        block.stateRoot,
        block.transactionsRoot,
        block.receiptsRoot,
        block.logsBloom,
      ])
      expect(BigInt(bytesToHex(fields[8]!))).toBe(BigInt(block.number))
      const [blockHeader, txs, uncles, withdrawals] = RLP.decode(hexToBytes(raw)) as unknown as [
        Uint8Array[],
        Uint8Array[],
        unknown[],
        unknown[],
      ]
      expect(blockHeader.map(bytesToHex)).toEqual(fields.map(bytesToHex))
      expect(uncles).toEqual([])
      expect(withdrawals).toEqual([])
      // typed transactions are RLP strings holding type ‖ payload: the same bytes as sent, and the block's root
      const sent = await Promise.all([tx.approve, tx.transferFrom].map((h) => call('debug_getRawTransaction', [h])))
      expect(txs.map(bytesToHex)).toEqual(sent)
      expect(bytesToHex(orderedTrieRoot(txs))).toBe(block.transactionsRoot)
      expect(bytesToHex(orderedTrieRoot(receipts.map(hexToBytes)))).toBe(block.receiptsRoot)
      expect(receipts[0].startsWith('0x02')).toBe(true)
      expect(await call('debug_getRawTransaction', [UNKNOWN_HASH])).toBe('0x')
      expect(await call('debug_getBadBlocks', [])).toEqual([])
      expect(bytes(await call('debug_getRawHeader', ['0x0']))).toBeUndefined()
      expect((await rpc(t.url, 'debug_getRawBlock', ['0xffffff'])).error).toEqual({ code: -32000, message: 'block #16777215 not found' })
    })
  })

  describe('while a trace runs', () => {
    it('the node keeps producing blocks', async () => {
      let finished = false
      const trace = traceTx([tx.spin, { disableStack: true, disableStorage: true, limit: 1, timeout: '120s' }]).finally(() => {
        finished = true
      })
      const start = performance.now()
      const hash = await call<string>('eth_sendRawTransaction', [await sign({ to: A1!.address, value: 1n, gasLimit: 21_000n })])
      const receipt = await receiptOf(hash)
      expect(receipt.status).toBe('0x1')
      expect(finished).toBe(false)
      const result = await trace
      expect(result.failed).toBe(false)
      expect(result.structLogs).toHaveLength(1)
      expect(performance.now() - start).toBeGreaterThan(0)
    }, 120_000)
  })
})

describe('debug namespace off', () => {
  it('answers method not found when debug is not in --json-rpc.api', async () => {
    const t = await startTestNode({ flags: { 'json-rpc.api': 'eth,net,web3' } })
    try {
      expect((await rpc(t.url, 'debug_traceTransaction', [UNKNOWN_HASH])).error?.code).toBe(-32601)
      expect((await rpc(t.url, 'debug_getBadBlocks', [])).error?.code).toBe(-32601)
    } finally {
      await t.destroy()
    }
  })
})
