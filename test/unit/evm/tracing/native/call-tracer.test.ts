import { describe, expect, it } from 'vitest'
import { TracerConfigError } from '../../../../../src/evm/tracing/hooks.js'
import { createCallTracer } from '../../../../../src/evm/tracing/native/call-tracer.js'
import { HookDriver, errorData, expectJson, hex, panicData, txInfo, word } from './helpers.js'
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
  TOPIC_C1,
  TOPIC_C2,
  TOPIC_D,
  TOP_INPUT,
  playNested,
  playTopRevert,
} from './scenarios.js'

async function trace(tracerConfig: Record<string, unknown> | undefined, play: (d: HookDriver) => Promise<void>): Promise<unknown> {
  const d = new HookDriver(await createCallTracer({ tracerConfig }))
  await play(d)
  return d.tracer.result()
}

/** The frames of playNested under R, in geth's encoding (no logs: withLog off). */
const nestedCalls = (dLogs?: unknown) => [
  {
    from: hex(C),
    gas: '0xc350',
    gasUsed: '0xbb8',
    to: hex(D),
    input: hex(D_INPUT),
    output: hex(word(1n)),
    ...(dLogs ? { logs: dLogs } : {}),
    value: '0x5',
    type: 'CALL',
  },
  {
    from: hex(C),
    gas: '0x9c40',
    gasUsed: '0x4b0',
    to: hex(L),
    input: hex(L_INPUT),
    output: hex(word(8n)),
    value: '0x1',
    type: 'DELEGATECALL',
  },
  { from: hex(C), gas: '0x7530', gasUsed: '0x48', to: hex(SHA256), input: '0x61626364', output: hex(word(0x88d4n)), type: 'STATICCALL' },
  { from: hex(C), gas: '0x7530', gasUsed: '0x190', to: hex(D), input: hex(D_INPUT), output: hex(word(1n)), type: 'STATICCALL' },
  { from: hex(C), gas: '0xea60', gasUsed: '0x4e20', to: hex(E), input: hex(INIT_E), output: hex(RUNTIME_E), value: '0x0', type: 'CREATE' },
  {
    from: hex(C),
    gas: '0x7530',
    gasUsed: '0x1f4',
    input: hex(INIT_F),
    output: hex(errorData('create failed')),
    error: 'execution reverted',
    revertReason: 'create failed',
    value: '0x0',
    type: 'CREATE2',
  },
  {
    from: hex(C),
    gas: '0x4e20',
    gasUsed: '0x7d0',
    to: hex(R),
    input: hex(R_INPUT),
    output: hex(errorData('insufficient funds')),
    error: 'execution reverted',
    revertReason: 'insufficient funds',
    calls: [
      { from: hex(R), gas: '0x1388', gasUsed: '0x12c', to: hex(D), input: hex(D_INPUT), output: hex(word(1n)), value: '0x0', type: 'CALL' },
    ],
    value: '0x0',
    type: 'CALL',
  },
  { from: hex(C), gas: '0x3e8', gasUsed: '0x3e8', to: hex(O), input: '0x0102', error: 'out of gas', value: '0x0', type: 'CALL' },
  {
    from: hex(C),
    gas: '0x2710',
    gasUsed: '0x1388',
    to: hex(K),
    input: hex(K_INPUT),
    calls: [{ from: hex(K), gas: '0x0', gasUsed: '0x0', to: hex(A), input: '0x', value: '0x32', type: 'SELFDESTRUCT' }],
    value: '0x0',
    type: 'CALL',
  },
]

describe('callTracer', () => {
  it('nests CALL, DELEGATECALL, STATICCALL, CREATE, CREATE2 and SELFDESTRUCT frames as geth does', async () => {
    expectJson(await trace(undefined, playNested), {
      from: hex(A),
      gas: '0x30d40', // the transaction's gas limit, not what is left after intrinsic gas
      gasUsed: '0x27100', // the receipt's gas used
      to: hex(C),
      input: hex(TOP_INPUT),
      output: hex(word(42n)),
      calls: nestedCalls(),
      value: '0x1',
      type: 'CALL',
    })
  })

  it('withLog: logs with their position among the calls; none from reverted frames or their children', async () => {
    const result = (await trace({ withLog: true }, playNested)) as { calls: unknown[]; logs: unknown[] }
    expectJson(result.logs, [
      { address: hex(C), topics: [hex(TOPIC_C1)], data: hex(word(1n)), position: '0x0' },
      { address: hex(C), topics: [hex(TOPIC_C2)], data: '0x', position: '0x9' },
    ])
    expectJson(result.calls, nestedCalls([{ address: hex(D), topics: [hex(TOPIC_D)], data: '0x', position: '0x0' }]))
  })

  it('a reverted transaction: error, revert data and the decoded Panic reason; withLog drops every log', async () => {
    expectJson(await trace({ withLog: true }, playTopRevert), {
      from: hex(A),
      gas: '0x186a0',
      gasUsed: '0x61e8',
      to: hex(C),
      input: hex(R_INPUT),
      output: hex(panicData(0x11n)),
      error: 'execution reverted',
      revertReason: 'arithmetic underflow or overflow',
      calls: [
        {
          from: hex(C),
          gas: '0x4e20',
          gasUsed: '0x12c',
          to: hex(D),
          input: hex(D_INPUT),
          output: hex(word(1n)),
          value: '0x0',
          type: 'CALL',
        },
      ],
      value: '0x0',
      type: 'CALL',
    })
  })

  it('a revert without Error/Panic data keeps the output and gives no reason', async () => {
    const result = await trace(undefined, async (d) => {
      await d.txStart(txInfo())
      await d.enter('CALL', A, C, { gas: 79_000n })
      await d.exit({ output: word(3n), error: 'execution reverted', gasUsed: 100n })
      await d.txEnd({ gasUsed: 21_100n })
    })
    expect(result).toMatchObject({ output: hex(word(3n)), error: 'execution reverted' })
    expect(result).not.toHaveProperty('revertReason')
  })

  it('onlyTopCall: no sub-calls; with withLog only the top frame logs', async () => {
    expectJson(await trace({ onlyTopCall: true, withLog: true }, playNested), {
      from: hex(A),
      gas: '0x30d40',
      gasUsed: '0x27100',
      to: hex(C),
      input: hex(TOP_INPUT),
      output: hex(word(42n)),
      logs: [
        { address: hex(C), topics: [hex(TOPIC_C1)], data: hex(word(1n)), position: '0x0' },
        { address: hex(C), topics: [hex(TOPIC_C2)], data: '0x', position: '0x0' },
      ],
      value: '0x1',
      type: 'CALL',
    })
  })

  it('a contract creation out of gas: no `to`, no output', async () => {
    expectJson(
      await trace(undefined, async (d) => {
        await d.txStart(txInfo({ to: undefined, input: INIT_E, gasLimit: 60_000n, value: 3n }))
        await d.enter('CREATE', A, E, { input: INIT_E, gas: 6_760n, value: 3n })
        await d.exit({ error: 'out of gas', gasUsed: 6_760n })
        await d.txEnd({ gasUsed: 60_000n, error: 'out of gas' })
      }),
      { from: hex(A), gas: '0xea60', gasUsed: '0xea60', input: hex(INIT_E), error: 'out of gas', value: '0x3', type: 'CREATE' },
    )
  })

  it('a successful contract creation names the new contract in `to`', async () => {
    const result = await trace(undefined, async (d) => {
      await d.txStart(txInfo({ to: undefined, input: INIT_E }))
      await d.enter('CREATE', A, E, { input: INIT_E, gas: 40_000n })
      await d.exit({ output: RUNTIME_E, gasUsed: 30_000n })
      await d.txEnd({ gasUsed: 90_000n })
    })
    expectJson(result, {
      from: hex(A),
      gas: '0x186a0',
      gasUsed: '0x15f90',
      to: hex(E),
      input: hex(INIT_E),
      output: hex(RUNTIME_E),
      value: '0x0',
      type: 'CREATE',
    })
  })

  it('rejects a bad tracerConfig', async () => {
    expect(() => createCallTracer({ tracerConfig: { withLog: 'yes' } })).toThrow(
      new TracerConfigError('invalid tracerConfig for callTracer: withLog must be a boolean, got string'),
    )
    expect(() => createCallTracer({ tracerConfig: [] as unknown as Record<string, unknown> })).toThrow(TracerConfigError)
    // Unknown keys and nulls are ignored, as geth's json.Unmarshal does.
    expect(() => createCallTracer({ tracerConfig: { onlyTopCall: null, enableMemory: true } })).not.toThrow()
  })

  it('stop: the result fails with the reason', async () => {
    const d = new HookDriver(await createCallTracer({ tracerConfig: undefined }))
    await d.txStart(txInfo())
    await d.enter('CALL', A, C)
    d.tracer.stop!(new Error('execution timeout'))
    await d.exit()
    await d.txEnd()
    expect(() => d.tracer.result()).toThrow('execution timeout')
  })

  it('fails when the hooks did not balance', async () => {
    const d = new HookDriver(await createCallTracer({ tracerConfig: undefined }))
    await d.txStart(txInfo())
    expect(() => d.tracer.result()).toThrow('incorrect number of top-level calls')
  })
})
