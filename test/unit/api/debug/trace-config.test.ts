import { describe, expect, it } from 'vitest'
import { blockOverrides, stateOverrides } from '../../../../src/api/debug/overrides.js'
import { defaultTracerRequest, traceCallConfig, traceConfig } from '../../../../src/api/debug/trace-config.js'
import { bytesToHex } from '../../../../src/primitives/hex.js'

const ADDRESS = '0x' + 'ab'.repeat(20)
const SLOT = '0x' + '00'.repeat(31) + '01'
const VALUE = '0x' + '00'.repeat(31) + '2a'

describe('TraceConfig codec', () => {
  it('defaults to the struct logger with geth’s 5 s timeout', () => {
    expect(traceConfig({})).toEqual(defaultTracerRequest())
    expect(traceConfig(null)).toEqual(defaultTracerRequest())
    expect(defaultTracerRequest()).toEqual({
      tracer: undefined,
      tracerConfig: undefined,
      structLogger: { enableMemory: false, disableStack: false, disableStorage: false, enableReturnData: false, limit: 0 },
      timeoutMs: 5000,
    })
  })

  it('reads every field; an empty tracer is the struct logger; reexec and debug are accepted and ignored', () => {
    const req = traceConfig({
      tracer: 'callTracer',
      tracerConfig: { withLog: true },
      timeout: '1m30s',
      reexec: 128,
      debug: true,
      enableMemory: true,
      disableStack: true,
      disableStorage: true,
      enableReturnData: true,
      limit: 7,
      unknown: 1,
    })
    expect(req).toEqual({
      tracer: 'callTracer',
      tracerConfig: { withLog: true },
      structLogger: { enableMemory: true, disableStack: true, disableStorage: true, enableReturnData: true, limit: 7 },
      timeoutMs: 90_000,
    })
    expect(traceConfig({ tracer: '' }).tracer).toBeUndefined()
    expect(traceConfig({ timeout: '500ms' }).timeoutMs).toBe(500)
    expect(traceConfig({ timeout: '1ns' }).timeoutMs).toBe(0.000001)
  })

  it('words errors as Go’s decoder and time.ParseDuration', () => {
    expect(() => traceConfig('x')).toThrow('json: cannot unmarshal string into Go value of type tracers.TraceConfig')
    expect(() => traceConfig({ limit: '5' })).toThrow('json: cannot unmarshal string into Go struct field TraceConfig.limit of type int')
    expect(() => traceConfig({ limit: 1.5 })).toThrow(
      'json: cannot unmarshal number 1.5 into Go struct field TraceConfig.limit of type int',
    )
    expect(() => traceConfig({ disableStack: 'yes' })).toThrow(
      'json: cannot unmarshal string into Go struct field TraceConfig.disableStack of type bool',
    )
    expect(() => traceConfig({ tracer: 5 })).toThrow('json: cannot unmarshal number into Go struct field TraceConfig.tracer of type string')
    expect(() => traceConfig({ timeout: 'soon' })).toThrow('time: invalid duration "soon"')
    expect(() => traceConfig({ timeout: '5x' })).toThrow('time: unknown unit "x" in duration "5x"')
    expect(() => traceConfig({ tracerConfig: [] })).toThrow('json: cannot unmarshal array into Go struct field TraceConfig.tracerConfig')
  })
})

describe('TraceCallConfig codec and overrides', () => {
  it('reads state overrides per address: balance, nonce, code, state, stateDiff', () => {
    const { overrides, request } = traceCallConfig({
      tracer: 'callTracer',
      stateOverrides: { [ADDRESS]: { balance: '0x10', nonce: '0x2', code: '0x6000', stateDiff: { [SLOT]: VALUE } } },
      blockOverrides: {
        number: '0x10',
        time: '0x20',
        gasLimit: '0x30',
        feeRecipient: ADDRESS,
        baseFeePerGas: '0x7',
        prevRandao: VALUE,
        difficulty: '0x1',
      },
      txIndex: '0x1',
    })
    expect(request.tracer).toBe('callTracer')
    const [o] = overrides.stateOverrides
    expect(bytesToHex(o!.address)).toBe(ADDRESS)
    expect(o!.account).toMatchObject({ balance: 16n, nonce: 2n })
    expect(bytesToHex(o!.account.code!)).toBe('0x6000')
    expect(o!.account.stateDiff!.map((e) => [bytesToHex(e.slot), bytesToHex(e.value)])).toEqual([[SLOT, VALUE]])
    expect(o!.account.state).toBeUndefined()
    const b = overrides.blockOverrides!
    expect([b.number, b.time, b.gasLimit, b.baseFee, bytesToHex(b.coinbase!), bytesToHex(b.random!)]).toEqual([
      16n,
      32n,
      48n,
      7n,
      ADDRESS,
      VALUE,
    ])
  })

  it('accepts geth’s older block override names', () => {
    const b = blockOverrides({ coinbase: ADDRESS, baseFee: '0x9', random: VALUE })
    expect([bytesToHex(b.coinbase!), b.baseFee, bytesToHex(b.random!)]).toEqual([ADDRESS, 9n, VALUE])
  })

  it('refuses malformed overrides with Go’s wording', () => {
    expect(() => stateOverrides({ '0x12': {} })).toThrow('hex string has length 2, want 40 for common.Address')
    expect(() => stateOverrides({ [ADDRESS]: { balance: 16 } })).toThrow(
      'json: cannot unmarshal non-string into Go struct field OverrideAccount.balance of type *hexutil.Big',
    )
    expect(() => stateOverrides({ [ADDRESS]: { state: { '0x01': VALUE } } })).toThrow('hex string has length 2, want 64 for common.Hash')
    expect(() => stateOverrides({ [ADDRESS]: { movePrecompileToAddress: ADDRESS } })).toThrow('movePrecompileToAddress is not supported')
    expect(() => blockOverrides({ time: '12' })).toThrow(
      'json: cannot unmarshal hex string without 0x prefix into Go struct field BlockOverrides.time of type hexutil.Uint64',
    )
  })
})
