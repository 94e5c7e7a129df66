import { describe, expect, it } from 'vitest'
import { defaultTracerRequest } from '../../../../src/api/debug/trace-config.js'
import { StructLogger } from '../../../../src/evm/tracing/struct-logger.js'
import { prepareTracer, type JsTracerEngine, type TracerRequest } from '../../../../src/evm/tracing/tracer-registry.js'

const request = (fields: Partial<TracerRequest>): TracerRequest => ({ ...defaultTracerRequest(), ...fields })

/** A JS engine double that records what it was asked to build. */
function fakeJs(): JsTracerEngine & { built: string[]; disposed: number } {
  const engine = {
    built: [] as string[],
    disposed: 0,
    namedJsTracers: { opcountTracer: '{ named program }' },
    looksLikeJsTracer: (s: string) => s.includes('{'),
    createJsTracer: async (code: string) => {
      engine.built.push(code)
      return { result: () => code, dispose: () => void engine.disposed++ }
    },
  }
  return engine
}

describe('prepareTracer', () => {
  it('gives the struct logger without a tracer name, a fresh one per transaction', async () => {
    const source = await prepareTracer(request({}), fakeJs())
    const a = await source.next()
    const b = await source.next()
    expect(a).toBeInstanceOf(StructLogger)
    expect(b).not.toBe(a)
  })

  it('finds noopTracer, the native tracers, named JS tracers, and runs programs in the JS engine', async () => {
    const js = fakeJs()
    expect(await (await (await prepareTracer(request({ tracer: 'noopTracer' }), js)).next()).result()).toEqual({})
    for (const name of ['callTracer', 'flatCallTracer', 'prestateTracer', '4byteTracer'])
      await expect(prepareTracer(request({ tracer: name }), js)).resolves.toBeDefined()
    await (await prepareTracer(request({ tracer: 'opcountTracer' }), js)).next()
    await (await prepareTracer(request({ tracer: '{ my program }' }), js)).next()
    expect(js.built).toEqual(['{ named program }', '{ my program }'])
  })

  it('muxTracer composes native, noop and named JS tracers', async () => {
    const mux = await (
      await prepareTracer(request({ tracer: 'muxTracer', tracerConfig: { noopTracer: {}, opcountTracer: {} } }), fakeJs())
    ).next()
    await mux.onTxEnd?.({ gasUsed: 1n, output: new Uint8Array(0), error: undefined, reverted: false }, undefined as never)
    expect(await mux.result()).toEqual({ noopTracer: {}, opcountTracer: '{ named program }' })
  })

  it('refuses an unknown name with geth’s `tracer not found`', async () => {
    await expect(prepareTracer(request({ tracer: 'nopeTracer' }), fakeJs())).rejects.toThrow('tracer not found')
    await expect(prepareTracer(request({ tracer: 'not a program' }), fakeJs())).rejects.toThrow('tracer not found')
  })

  it('builds the first tracer at once (a bad config fails before execution) and frees it when unused', async () => {
    await expect(prepareTracer(request({ tracer: 'callTracer', tracerConfig: { withLog: 'yes' } }), fakeJs())).rejects.toThrow(/withLog/)
    const js = fakeJs()
    const source = await prepareTracer(request({ tracer: '{ p }' }), js)
    source.close()
    expect(js.disposed).toBe(1)
  })
})
