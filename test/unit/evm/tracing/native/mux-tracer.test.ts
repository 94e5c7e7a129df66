import { describe, expect, it } from 'vitest'
import { TracerConfigError, type Tracer, type TracerFactory } from '../../../../../src/evm/tracing/hooks.js'
import { createMuxTracer } from '../../../../../src/evm/tracing/native/mux-tracer.js'
import { nativeTracers } from '../../../../../src/evm/tracing/native/index.js'
import { HookDriver, expectJson, hex, txInfo, word } from './helpers.js'
import { A, C, TOP_INPUT, playNested } from './scenarios.js'

const mux = nativeTracers.muxTracer!

describe('muxTracer', () => {
  it('runs callTracer and 4byteTracer together; results keyed by name in ascending order', async () => {
    const d = new HookDriver(await mux({ tracerConfig: { callTracer: { onlyTopCall: true }, '4byteTracer': {} } }))
    await playNested(d)
    const result = (await d.tracer.result()) as Record<string, unknown>
    expect(Object.keys(result)).toEqual(['4byteTracer', 'callTracer'])
    expectJson(result.callTracer, {
      from: hex(A),
      gas: '0x30d40',
      gasUsed: '0x27100',
      to: hex(C),
      input: hex(TOP_INPUT),
      output: hex(word(42n)),
      value: '0x1',
      type: 'CALL',
    })
    expect(result['4byteTracer']).toMatchObject({ '0x12345678-32': 1, '0xaabbccdd-0': 3 })
  })

  it('has only the hooks its tracers need (no onOpcode without a tracer that steps)', async () => {
    const light = await mux({ tracerConfig: { callTracer: {}, '4byteTracer': {} } })
    expect(light.onOpcode).toBeUndefined()
    expect(light.onEnter).toBeTypeOf('function')
    const heavy = await mux({ tracerConfig: { prestateTracer: { diffMode: true }, callTracer: null } })
    expect(heavy.onOpcode).toBeTypeOf('function')
    await expect((await mux({ tracerConfig: undefined })).result()).resolves.toEqual({})
  })

  it('composes tracers from a larger registry, awaiting each async hook before the next tracer sees it', async () => {
    const seen: string[] = []
    const slow: TracerFactory = () => ({
      onEnter: async (f) => {
        // Resumes on a later turn of the event loop: an unawaited hook would let the next tracer go first.
        await new Promise((r) => setImmediate(r))
        seen.push(`slow enter ${f.depth}`)
      },
      result: () => 'slow',
    })
    const fast: TracerFactory = (): Tracer => ({ onEnter: (f) => void seen.push(`fast enter ${f.depth}`), result: async () => 'fast' })
    const registry: Record<string, TracerFactory> = { ...nativeTracers, slow, fast }
    const tracer = await createMuxTracer(registry)({ tracerConfig: { slow: {}, fast: {} } })
    const d = new HookDriver(tracer)
    await d.txStart(txInfo())
    await d.enter('CALL', A, C)
    await d.enter('CALL', C, A)
    expect(seen).toEqual(['fast enter 0', 'slow enter 0', 'fast enter 1', 'slow enter 1'])
    expect(await tracer.result()).toEqual({ fast: 'fast', slow: 'slow' })
  })

  it('rejects unknown tracers and bad sub-configs', async () => {
    await expect(mux({ tracerConfig: { nope: {} } })).rejects.toThrow(
      new TracerConfigError('invalid tracerConfig for muxTracer: unknown tracer "nope"'),
    )
    await expect(mux({ tracerConfig: { toString: {} } })).rejects.toThrow(TracerConfigError)
    await expect(mux({ tracerConfig: { callTracer: true } })).rejects.toThrow('the config of callTracer must be an object')
    await expect(mux({ tracerConfig: { callTracer: { withLog: 1 } } })).rejects.toThrow('withLog must be a boolean')
  })

  it('stop reaches every tracer', async () => {
    const tracer = await mux({ tracerConfig: { callTracer: {}, '4byteTracer': {} } })
    tracer.stop!(new Error('execution timeout'))
    await expect(tracer.result()).rejects.toThrow('execution timeout')
  })
})
