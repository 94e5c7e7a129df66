/**
 * geth's native tracers (callTracer, flatCallTracer, prestateTracer, 4byteTracer, muxTracer) through
 * debug_traceTransaction and debug_traceCall on a real dev node, over test/fixtures/contracts/Tracing.sol:
 * one transaction that calls, delegatecalls, staticcalls (a contract and the sha256 precompile), creates,
 * create2s, self-destructs, catches a reverted call and an out-of-gas call, and logs in frames that
 * succeed and frames that revert; one that reverts as a whole; one contract creation. Each result is
 * checked for geth's field rules and compared with a golden file (test/fixtures/golden/debug/native/).
 * Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/e2e/native-tracers.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet, getCreateAddress, type TransactionRequest } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { readGolden } from '../helpers/golden.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import type { BlockJson, ReceiptJson } from '../../src/api/eth/format.js'
import type { FlatTraceJson } from '../../src/evm/tracing/native/flat-call-tracer.js'
import type { AccountJson } from '../../src/evm/tracing/native/prestate-json.js'

const CHAIN_ID = 31337n
const GWEI = 10n ** 9n
const [SENDER] = devAccounts(1).map((a) => new Wallet(a.privateKey))
/** Fixed fee fields (no estimation): the transactions are the same every run. */
const FEES = { type: 2, chainId: CHAIN_ID, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI } as const
const RUN_GAS = 3_000_000n
const RUN_VALUE = 5n

/** prestateTracer's result: address → account. */
type Prestate = Record<string, AccountJson>

interface Frame {
  type: string
  from: string
  to?: string
  gas: string
  gasUsed: string
  input: string
  output?: string
  error?: string
  revertReason?: string
  value?: string
  calls?: Frame[]
  logs?: { address: string; topics: string[]; data: string; position: string }[]
}

const { TraceTarget, TraceLib, TraceProbe } = compileContracts('Tracing.sol')
const probeAbi = new Interface(TraceProbe!.abi as never)
const selector = (name: string, iface = probeAbi): string => iface.getFunction(name)!.selector

describe('native tracers on a dev node', () => {
  let t: TestNode
  let nonce = 0
  const hashes = { deploy: '', run: '', revert: '' }
  const addresses = { target: '', lib: '', probe: '' }
  /** Fee recipient of the traced blocks (its balance and the sender's follow the base fee). */
  let coinbase = ''

  /** The result of a call, of the shape `T` the caller expects; throws on an error reply. */
  const call = async <T>(method: string, params: unknown[]): Promise<T> => {
    const r = await rpc(t.url, method, params)
    if (r.error) throw new Error(`${method}: ${r.error.message}`)
    return r.result as T
  }

  /** Sends a transaction from the dev account and waits for its receipt. */
  const send = async (tx: TransactionRequest): Promise<{ hash: string; receipt: ReceiptJson }> => {
    const hash = await call<string>('eth_sendRawTransaction', [await SENDER!.signTransaction({ ...FEES, nonce: nonce++, ...tx })])
    const receipt = await waitFor(
      async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [hash])).result,
      20_000,
      `receipt of ${hash}`,
    )
    return { hash, receipt }
  }

  const deploy = async (bytecode: string): Promise<{ hash: string; address: string }> => {
    const address = getCreateAddress({ from: SENDER!.address, nonce }).toLowerCase()
    const { hash, receipt } = await send({ data: bytecode, gasLimit: 2_000_000n })
    expect(receipt.status).toBe('0x1')
    return { hash, address }
  }

  /** The trace of a transaction by a named tracer, of the shape `T` the caller expects. */
  const trace = <T>(hash: string, tracer: string, tracerConfig?: Record<string, unknown>): Promise<T> =>
    call<T>('debug_traceTransaction', [hash, tracerConfig === undefined ? { tracer } : { tracer, tracerConfig }])

  const expectGolden = async (name: string, value: unknown): Promise<void> => {
    const { expected, actual } = await readGolden(`debug/native/${name}`, value)
    expect(actual).toBe(expected)
  }

  /**
   * Sender and coinbase balances depend on the base fee of the run: masked for the golden files. The
   * coinbase (the run's random validator) becomes `<coinbase>`, and keys are sorted after the renaming
   * so its place does not depend on its address.
   */
  const maskFeeBalances = (state: Record<string, { balance?: string }>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(state)
        .map(([address, account]): [string, unknown] => {
          const volatile = address === SENDER!.address.toLowerCase() || address === coinbase
          const masked = volatile && account.balance !== undefined ? { ...account, balance: '<balance>' } : account
          return [address === coinbase ? '<coinbase>' : address, masked]
        })
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    )

  beforeAll(async () => {
    t = await startTestNode()
    addresses.target = (await deploy(TraceTarget!.bytecode)).address
    addresses.lib = (await deploy(TraceLib!.bytecode)).address
    const probe = await deploy(TraceProbe!.bytecode)
    addresses.probe = probe.address
    hashes.deploy = probe.hash
    const run = await send({
      to: addresses.probe,
      data: probeAbi.encodeFunctionData('run', [addresses.target, addresses.lib]),
      value: RUN_VALUE,
      gasLimit: RUN_GAS,
    })
    expect(run.receipt.status).toBe('0x1')
    hashes.run = run.hash
    const reverted = await send({
      to: addresses.probe,
      data: probeAbi.encodeFunctionData('runAndRevert', [addresses.target]),
      gasLimit: 200_000n,
    })
    expect(reverted.receipt.status).toBe('0x0')
    hashes.revert = reverted.hash
    coinbase = (await call<BlockJson>('eth_getBlockByHash', [run.receipt.blockHash, false])).miner.toLowerCase()
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('callTracer: the call tree with geth field rules', async () => {
    const top = await trace<Frame>(hashes.run, 'callTracer')
    const receipt = await call<ReceiptJson>('eth_getTransactionReceipt', [hashes.run])
    expect(top).toMatchObject({ type: 'CALL', from: SENDER!.address.toLowerCase(), to: addresses.probe, value: '0x5' })
    expect(top.gas).toBe('0x' + RUN_GAS.toString(16))
    expect(top.gasUsed).toBe(receipt.gasUsed)
    expect(top.calls!.map((c) => c.type)).toEqual([
      'CALL',
      'DELEGATECALL',
      'STATICCALL',
      'STATICCALL',
      'CREATE',
      'CREATE2',
      'CALL',
      'CALL',
      'CREATE',
      'CALL',
    ])
    const [ping, delegate, staticCall, sha256, created, created2, fail, burn, child, destroy] = top.calls!
    expect(ping).toMatchObject({ to: addresses.target, value: '0x1' })
    expect(delegate).toMatchObject({ from: addresses.probe, to: addresses.lib, value: '0x5' })
    expect(staticCall).not.toHaveProperty('value')
    expect(sha256).toMatchObject({ to: '0x0000000000000000000000000000000000000002' })
    expect(created!.to).toBe(getCreateAddress({ from: addresses.probe, nonce: 1 }).toLowerCase())
    expect(created2!.to).toMatch(/^0x[0-9a-f]{40}$/)
    expect(fail).toMatchObject({ error: 'execution reverted', revertReason: 'nope' })
    expect(burn).toMatchObject({ error: 'out of gas', gas: '0x4e20', gasUsed: '0x4e20' })
    expect(burn).not.toHaveProperty('output')
    expect(destroy!.calls).toEqual([
      { from: child!.to, gas: '0x0', gasUsed: '0x0', to: SENDER!.address.toLowerCase(), input: '0x', value: '0x1', type: 'SELFDESTRUCT' },
    ])
    await expectGolden('call-tracer', top)
  })

  it('callTracer withLog: logs with positions; none from reverted frames', async () => {
    const top = await trace<Frame>(hashes.run, 'callTracer', { withLog: true })
    expect(top.logs!.map((l) => l.position)).toEqual(['0x0', '0xa'])
    const [ping, , , , created, , fail] = top.calls!
    expect(ping!.logs).toHaveLength(1)
    expect(created!.logs).toHaveLength(1)
    expect(fail).not.toHaveProperty('logs')
    await expectGolden('call-tracer-with-log', top)
  })

  it('callTracer onlyTopCall', async () => {
    const top = await trace<Frame>(hashes.run, 'callTracer', { onlyTopCall: true, withLog: true })
    expect(top).not.toHaveProperty('calls')
    await expectGolden('call-tracer-only-top-call', top)
  })

  it('callTracer on a reverted transaction: reason decoded, every log dropped', async () => {
    const top = await trace<Frame>(hashes.revert, 'callTracer', { withLog: true })
    expect(top).toMatchObject({ error: 'execution reverted', revertReason: 'probe reverted' })
    expect(top).not.toHaveProperty('logs')
    expect(top.calls![0]).not.toHaveProperty('logs')
    await expectGolden('call-tracer-reverted', top)
  })

  it('callTracer on a contract creation', async () => {
    const top = await trace<Frame>(hashes.deploy, 'callTracer')
    expect(top).toMatchObject({ type: 'CREATE', to: addresses.probe, value: '0x0' })
    expect(top.output).toBe(TraceProbe!.deployedBytecode)
    await expectGolden('call-tracer-create', top)
  })

  it('callTracer through debug_traceCall: a Panic reason', async () => {
    const args = { from: SENDER!.address, to: addresses.probe, data: probeAbi.encodeFunctionData('divide', [0n]), gas: '0x100000' }
    const top = await call<Frame>('debug_traceCall', [args, 'latest', { tracer: 'callTracer' }])
    expect(top).toMatchObject({ type: 'CALL', error: 'execution reverted', revertReason: 'division or modulo by zero', gas: '0x100000' })
  })

  it('flatCallTracer: Parity-style traces', async () => {
    const traces = await trace<FlatTraceJson[]>(hashes.run, 'flatCallTracer')
    // The STATICCALL to sha256 is left out, so the top call has 9 subtraces.
    expect(traces.map((x) => [x.type, x.traceAddress.join('.')])).toEqual([
      ['call', ''],
      ['call', '0'],
      ['call', '1'],
      ['call', '2'],
      ['create', '3'],
      ['create', '4'],
      ['call', '5'],
      ['call', '6'],
      ['create', '7'],
      ['call', '8'],
      ['suicide', '8.0'],
    ])
    expect(traces[0]).toMatchObject({ subtraces: 9, transactionHash: hashes.run, transactionPosition: 0 })
    expect(traces[3]!.action).toMatchObject({ callType: 'staticcall', value: '0x0' })
    expect(traces[6]).toMatchObject({ error: 'execution reverted', result: { gasUsed: expect.any(String) } })
    expect(traces[7]).toMatchObject({ error: 'out of gas' })
    expect(traces[7]).not.toHaveProperty('result')
    expect(traces[10]!.action).toEqual({ address: traces[9]!.action.to, balance: '0x1', refundAddress: SENDER!.address.toLowerCase() })
    await expectGolden('flat-call-tracer', traces)
    const parity = await trace<FlatTraceJson[]>(hashes.run, 'flatCallTracer', { convertParityErrors: true, includePrecompiles: true })
    expect(parity[0].subtraces).toBe(10)
    expect(parity.flatMap((x) => (x.error ? [x.error] : []))).toEqual(['Reverted', 'Out of gas'])
    await expectGolden('flat-call-tracer-parity', parity)
  })

  it('prestateTracer: the touched accounts before the transaction', async () => {
    const pre = await trace<Prestate>(hashes.run, 'prestateTracer')
    expect(Object.keys(pre)).toEqual(
      expect.arrayContaining([SENDER!.address.toLowerCase(), addresses.probe, addresses.target, addresses.lib, coinbase]),
    )
    expect(pre[addresses.probe].code).toBe(TraceProbe!.deployedBytecode)
    // The children the transaction created were empty before it.
    expect(pre).not.toHaveProperty(getCreateAddress({ from: addresses.probe, nonce: 1 }).toLowerCase())
    await expectGolden('prestate-tracer', maskFeeBalances(pre))
  })

  it('prestateTracer diffMode: what changed', async () => {
    const diff = await trace<{ post: Prestate; pre: Prestate }>(hashes.run, 'prestateTracer', { diffMode: true })
    expect(Object.keys(diff)).toEqual(['post', 'pre'])
    const child = getCreateAddress({ from: addresses.probe, nonce: 1 }).toLowerCase()
    expect(diff.post[child]).toMatchObject({ nonce: 1, code: expect.stringMatching(/^0x/) })
    expect(diff.pre).not.toHaveProperty(child)
    expect(diff.post[addresses.probe].storage).toBeDefined() // TraceLib.store ran in the probe's storage
    await expectGolden('prestate-tracer-diff', { post: maskFeeBalances(diff.post), pre: maskFeeBalances(diff.pre) })
    const lean = await trace<Prestate>(hashes.run, 'prestateTracer', { disableCode: true, disableStorage: true })
    expect(lean[addresses.probe]).not.toHaveProperty('code')
    expect(lean[addresses.target]).not.toHaveProperty('storage')
  })

  it('4byteTracer: selectors and argument sizes', async () => {
    const target = new Interface(TraceTarget!.abi as never)
    const lib = new Interface(TraceLib!.abi as never)
    const ids = await trace(hashes.run, '4byteTracer')
    expect(ids).toMatchObject({
      [`${selector('run')}-64`]: 1,
      [`${selector('ping', target)}-32`]: 1,
      [`${selector('store', lib)}-32`]: 1,
      [`${selector('get', target)}-0`]: 1,
      [`${selector('fail', target)}-96`]: 1,
      [`${selector('burn', target)}-0`]: 1,
    })
    await expectGolden('4byte-tracer', ids)
  })

  it('muxTracer: callTracer and 4byteTracer at once', async () => {
    const both = await trace<Record<string, unknown>>(hashes.run, 'muxTracer', { callTracer: { onlyTopCall: true }, '4byteTracer': {} })
    expect(Object.keys(both)).toEqual(['4byteTracer', 'callTracer'])
    expect(both.callTracer).toEqual(await trace(hashes.run, 'callTracer', { onlyTopCall: true }))
    expect(both['4byteTracer']).toEqual(await trace(hashes.run, '4byteTracer'))
    await expectGolden('mux-tracer', both)
  })

  it('a bad tracerConfig is an error naming the key', async () => {
    const r = await rpc(t.url, 'debug_traceTransaction', [hashes.run, { tracer: 'callTracer', tracerConfig: { withLog: 'yes' } }])
    expect(r.error?.message).toBe('invalid tracerConfig for callTracer: withLog must be a boolean, got string')
    const mux = await rpc(t.url, 'debug_traceTransaction', [hashes.run, { tracer: 'muxTracer', tracerConfig: { nope: {} } }])
    expect(mux.error?.message).toBe('invalid tracerConfig for muxTracer: unknown tracer "nope"')
  })
})
