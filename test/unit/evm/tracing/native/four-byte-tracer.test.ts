import { describe, expect, it } from 'vitest'
import { createFourByteTracer } from '../../../../../src/evm/tracing/native/four-byte-tracer.js'
import { HookDriver, expectJson, lowAddr, txInfo } from './helpers.js'
import { A, E, INIT_E, RUNTIME_E, TOP_INPUT, playNested } from './scenarios.js'

describe('4byteTracer', () => {
  it('counts selector and argument size of every call with 4+ bytes of input, the top call included', async () => {
    const d = new HookDriver(await createFourByteTracer({ tracerConfig: undefined }))
    await playNested(d)
    // Not counted: the sha256 precompile, the CREATE/CREATE2 init code, the 2-byte call, the SELFDESTRUCT.
    expectJson(await d.tracer.result(), {
      '0x11223344-0': 1,
      '0x12345678-32': 1,
      '0x41c0e1b5-0': 1,
      '0xaabbccdd-0': 3,
      '0xdeadbeef-32': 1,
    })
  })

  it('a contract creation transaction counts nothing for its init code', async () => {
    const d = new HookDriver(await createFourByteTracer({ tracerConfig: undefined }))
    await d.txStart(txInfo({ to: undefined, input: INIT_E }))
    await d.enter('CREATE', A, E, { input: INIT_E })
    await d.exit({ output: RUNTIME_E })
    await d.txEnd()
    expectJson(await d.tracer.result(), {})
  })

  it('skips a transaction sent straight to a precompile', async () => {
    const d = new HookDriver(await createFourByteTracer({ tracerConfig: undefined }))
    await d.txStart(txInfo({ to: lowAddr(1), input: TOP_INPUT }))
    await d.enter('CALL', A, lowAddr(1), { input: TOP_INPUT })
    await d.exit()
    await d.txEnd()
    expect(await d.tracer.result()).toEqual({})
  })

  it('stop: the result fails with the reason', async () => {
    const tracer = await createFourByteTracer({ tracerConfig: undefined })
    tracer.stop!(new Error('execution timeout'))
    expect(() => tracer.result()).toThrow('execution timeout')
  })
})
