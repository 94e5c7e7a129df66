import { describe, expect, it } from 'vitest'
import { TracerConfigError } from '../../../../../src/evm/tracing/hooks.js'
import { createFlatCallTracer, type FlatTraceJson } from '../../../../../src/evm/tracing/native/flat-call-tracer.js'
import { HookDriver, errorData, expectJson, hex, txInfo, word } from './helpers.js'
import {
  A,
  C,
  D,
  D_INPUT,
  E,
  INIT_E,
  INIT_F,
  K,
  K_INPUT,
  L,
  L_INPUT,
  O,
  R,
  RUNTIME_E,
  R_INPUT,
  SHA256,
  TOP_INPUT,
  playNested,
} from './scenarios.js'

async function trace(
  tracerConfig: Record<string, unknown> | undefined,
  tx = txInfo({ input: TOP_INPUT, value: 1n, gasLimit: 200_000n }),
): Promise<FlatTraceJson[]> {
  const d = new HookDriver(await createFlatCallTracer({ tracerConfig }))
  await playNested(d, tx)
  return (await d.tracer.result()) as FlatTraceJson[]
}

const where = { blockHash: '0x' + 'bb'.repeat(32), blockNumber: 7 }
const tx = { transactionHash: '0x' + '99'.repeat(32), transactionPosition: 2 }
const call = (
  action: Record<string, string>,
  result: Record<string, string> | undefined,
  subtraces: number,
  traceAddress: number[],
  error?: string,
) => ({
  action,
  ...where,
  ...(error !== undefined ? { error } : {}),
  ...(result ? { result } : {}),
  subtraces,
  traceAddress,
  ...tx,
  type: 'call',
})

describe('flatCallTracer', () => {
  it('flattens the call tree Parity-style, without calls to precompiles', async () => {
    expectJson(await trace(undefined), [
      call(
        { callType: 'call', from: hex(A), gas: '0x30d40', input: hex(TOP_INPUT), to: hex(C), value: '0x1' },
        { gasUsed: '0x27100', output: hex(word(42n)) },
        8,
        [],
      ),
      call(
        { callType: 'call', from: hex(C), gas: '0xc350', input: hex(D_INPUT), to: hex(D), value: '0x5' },
        { gasUsed: '0xbb8', output: hex(word(1n)) },
        0,
        [0],
      ),
      call(
        { callType: 'delegatecall', from: hex(C), gas: '0x9c40', input: hex(L_INPUT), to: hex(L), value: '0x1' },
        { gasUsed: '0x4b0', output: hex(word(8n)) },
        0,
        [1],
      ),
      // A STATICCALL carries a zero value here (it has none in callTracer).
      call(
        { callType: 'staticcall', from: hex(C), gas: '0x7530', input: hex(D_INPUT), to: hex(D), value: '0x0' },
        { gasUsed: '0x190', output: hex(word(1n)) },
        0,
        [2],
      ),
      {
        action: { from: hex(C), gas: '0xea60', init: hex(INIT_E), value: '0x0' },
        ...where,
        result: { address: hex(E), code: hex(RUNTIME_E), gasUsed: '0x4e20' },
        subtraces: 0,
        traceAddress: [3],
        ...tx,
        type: 'create',
      },
      {
        // A reverted creation keeps its result (the revert data as code) but has no address.
        action: { from: hex(C), gas: '0x7530', init: hex(INIT_F), value: '0x0' },
        ...where,
        error: 'execution reverted',
        result: { code: hex(errorData('create failed')), gasUsed: '0x1f4' },
        subtraces: 0,
        traceAddress: [4],
        ...tx,
        type: 'create',
      },
      call(
        { callType: 'call', from: hex(C), gas: '0x4e20', input: hex(R_INPUT), to: hex(R), value: '0x0' },
        { gasUsed: '0x7d0', output: hex(errorData('insufficient funds')) },
        1,
        [5],
        'execution reverted',
      ),
      call(
        { callType: 'call', from: hex(R), gas: '0x1388', input: hex(D_INPUT), to: hex(D), value: '0x0' },
        { gasUsed: '0x12c', output: hex(word(1n)) },
        0,
        [5, 0],
      ),
      // Any failure but a revert drops the result.
      call({ callType: 'call', from: hex(C), gas: '0x3e8', input: '0x0102', to: hex(O), value: '0x0' }, undefined, 0, [6], 'out of gas'),
      call(
        { callType: 'call', from: hex(C), gas: '0x2710', input: hex(K_INPUT), to: hex(K), value: '0x0' },
        { gasUsed: '0x1388', output: '0x' },
        1,
        [7],
      ),
      {
        action: { address: hex(K), balance: '0x32', refundAddress: hex(A) },
        ...where,
        subtraces: 0,
        traceAddress: [7, 0],
        ...tx,
        type: 'suicide',
      },
    ])
  })

  it('includePrecompiles keeps the STATICCALL to sha256', async () => {
    const traces = await trace({ includePrecompiles: true })
    expect(traces[0]!.subtraces).toBe(9)
    expectJson(
      traces[3],
      call(
        { callType: 'staticcall', from: hex(C), gas: '0x7530', input: '0x61626364', to: hex(SHA256), value: '0x0' },
        { gasUsed: '0x48', output: hex(word(0x88d4n)) },
        0,
        [2],
      ),
    )
    expect(traces.map((t) => t.traceAddress.join('.'))).toEqual(['', '0', '1', '2', '3', '4', '5', '6', '6.0', '7', '8', '8.0'])
  })

  it('convertParityErrors renames errors as Parity does', async () => {
    const errors = (await trace({ convertParityErrors: true })).flatMap((t) => (t.error ? [t.error] : []))
    expect(errors).toEqual(['Reverted', 'Reverted', 'Out of gas'])
  })

  it('a traced call (debug_traceCall) has no block hash, transaction hash or position', async () => {
    const traces = await trace(
      undefined,
      txInfo({ input: TOP_INPUT, value: 1n, gasLimit: 200_000n, txHash: undefined, txIndex: undefined }),
    )
    expect(traces[0]).toMatchObject({ blockHash: null, blockNumber: 7, transactionHash: null, transactionPosition: 0 })
  })

  it('rejects a bad tracerConfig', () => {
    expect(() => createFlatCallTracer({ tracerConfig: { includePrecompiles: 1 } })).toThrow(TracerConfigError)
  })

  it('stop: the result fails with the reason', async () => {
    const d = new HookDriver(await createFlatCallTracer({ tracerConfig: undefined }))
    await d.txStart(txInfo())
    d.tracer.stop!(new Error('execution timeout'))
    expect(() => d.tracer.result()).toThrow('execution timeout')
  })
})
