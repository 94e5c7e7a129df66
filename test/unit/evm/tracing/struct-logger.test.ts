/**
 * The struct logger's JSON (geth logger.go toLegacyJSON after go-ethereum#34093 / execution-apis#762)
 * from synthetic opcode steps: field order and presence, hex forms, storage snapshots, limit, the
 * error of a failing opcode, returnValue for success, revert and other failures.
 */
import { describe, expect, it } from 'vitest'
import type { OpcodeStep, TraceStateReader } from '../../../../src/evm/tracing/hooks.js'
import {
  StructLogger,
  defaultStructLoggerOptions,
  type StructLoggerOptions,
  type StructLoggerResult,
} from '../../../../src/evm/tracing/struct-logger.js'
import { TraceBudget } from '../../../../src/evm/tracing/trace-budget.js'
import { TraceTooLargeError } from '../../../../src/evm/tracing/trace-errors.js'

const CONTRACT = new Uint8Array(20).fill(0xcc)
const word = (n: number): string => '0x' + n.toString(16).padStart(64, '0')

function step(op: number, opName: string, fields: Partial<OpcodeStep> = {}): OpcodeStep {
  return {
    pc: 0,
    op,
    opName,
    gas: 1000n,
    cost: 3n,
    depth: 0,
    stack: [],
    memory: new Uint8Array(0),
    returnData: new Uint8Array(0),
    refund: 0n,
    contract: CONTRACT,
    codeAddress: CONTRACT,
    caller: CONTRACT,
    callValue: 0n,
    input: new Uint8Array(0),
    ...fields,
  }
}

/** Storage reads answer slot number + 100. */
const state: TraceStateReader = {
  getBalance: async () => 0n,
  getNonce: async () => 0n,
  getCode: async () => new Uint8Array(0),
  getStorage: async (_a, slot) => {
    const out = new Uint8Array(32)
    out[31] = slot[31]! + 100
    return out
  },
  exists: async () => true,
}

function logger(opts: Partial<StructLoggerOptions> = {}): StructLogger {
  return new StructLogger({ ...defaultStructLoggerOptions, ...opts })
}

/** The logger's answer (JSON bytes) parsed. */
function resultOf(l: StructLogger): StructLoggerResult {
  return JSON.parse(l.result().toString()) as StructLoggerResult
}

describe('StructLogger', () => {
  it('writes entries in geth’s field order: stack as minimal 0x hex, depth from 1, refund only when non-zero', async () => {
    const l = logger()
    await l.onOpcode(step(0x60, 'PUSH1', { pc: 0, gas: 100n, cost: 3n }), state)
    await l.onOpcode(step(0x01, 'ADD', { pc: 2, gas: 97n, cost: 3n, stack: [0n, 255n], refund: 4800n, depth: 1 }), state)
    l.onTxEnd({ gasUsed: 21_006n, output: new Uint8Array([1, 2]), error: undefined, reverted: false })
    expect(l.result().toString()).toBe(
      JSON.stringify({
        gas: 21006,
        failed: false,
        returnValue: '0x0102',
        structLogs: [
          { pc: 0, op: 'PUSH1', gas: 100, gasCost: 3, depth: 1, stack: [] },
          { pc: 2, op: 'ADD', gas: 97, gasCost: 3, depth: 2, stack: ['0x0', '0xff'], refund: 4800 },
        ],
      }),
    )
  })

  it('shows storage on SLOAD (the value read) and SSTORE (the value written) only, slots sorted, 0x words', async () => {
    const l = logger()
    await l.onOpcode(step(0x55, 'SSTORE', { stack: [7n, 2n] }), state)
    await l.onOpcode(step(0x50, 'POP', { stack: [1n] }), state)
    await l.onOpcode(step(0x54, 'SLOAD', { stack: [1n] }), state)
    l.onTxEnd({ gasUsed: 1n, output: new Uint8Array(0), error: undefined, reverted: false })
    const logs = resultOf(l).structLogs
    expect(logs[0]!.storage).toEqual({ [word(2)]: word(7) })
    expect(logs[1]!.storage).toBeUndefined()
    expect(Object.keys(logs[2]!.storage!)).toEqual([word(1), word(2)])
    expect(logs[2]!.storage).toEqual({ [word(1)]: word(101), [word(2)]: word(7) })
  })

  it('disableStack, disableStorage, enableMemory (0x 32-byte words, absent while empty), enableReturnData', async () => {
    const memory = new Uint8Array(64)
    memory[31] = 0x80
    const l = logger({ disableStack: true, disableStorage: true, enableMemory: true, enableReturnData: true })
    await l.onOpcode(step(0x55, 'SSTORE', { stack: [7n, 2n] }), state)
    await l.onOpcode(step(0x51, 'MLOAD', { stack: [0n], memory, returnData: new Uint8Array([0xab]) }), state)
    l.onTxEnd({ gasUsed: 1n, output: new Uint8Array(0), error: undefined, reverted: false })
    const [sstore, mload] = resultOf(l).structLogs
    expect(sstore).toEqual({ pc: 0, op: 'SSTORE', gas: 1000, gasCost: 3, depth: 1 })
    expect(mload).toEqual({ pc: 0, op: 'MLOAD', gas: 1000, gasCost: 3, depth: 1, returnData: '0xab', memory: [word(0x80), word(0)] })
  })

  it('limit caps the entries (0 = none)', async () => {
    const l = logger({ limit: 2 })
    for (let i = 0; i < 5; i++) await l.onOpcode(step(0x5b, 'JUMPDEST', { pc: i }), state)
    l.onTxEnd({ gasUsed: 1n, output: new Uint8Array(0), error: undefined, reverted: false })
    expect(resultOf(l).structLogs.map((e) => e.pc)).toEqual([0, 1])
  })

  it('writes each entry against the byte budget as it goes and fails the step that passes it', async () => {
    const budget = new TraceBudget(1_000)
    const l = new StructLogger(defaultStructLoggerOptions, budget)
    let failedAt = -1
    for (let i = 0; i < 100 && failedAt < 0; i++) {
      try {
        await l.onOpcode(step(0x5b, 'JUMPDEST', { pc: i, stack: [1n, 2n] }), state)
      } catch (err) {
        expect(err).toBeInstanceOf(TraceTooLargeError)
        failedAt = i
      }
    }
    // {"pc":N,"op":"JUMPDEST","gas":1000,"gasCost":3,"depth":1,"stack":["0x1","0x2"]} is about 75 bytes
    expect(failedAt).toBeGreaterThan(10)
    expect(failedAt).toBeLessThan(16)
    expect(budget.spent).toBeGreaterThan(1_000)
    expect(budget.spent).toBeLessThan(1_100)
  })

  it('counts exactly the bytes of its answer', async () => {
    const budget = new TraceBudget(0)
    const l = new StructLogger({ ...defaultStructLoggerOptions, enableMemory: true }, budget)
    for (let i = 0; i < 20; i++)
      await l.onOpcode(step(0x55, 'SSTORE', { pc: i, stack: [BigInt(i), 5n], memory: new Uint8Array(40) }), state)
    l.onTxEnd({ gasUsed: 1n, output: new Uint8Array([0xe9]), error: undefined, reverted: false })
    const bytes = l.result()
    expect(budget.spent).toBe(bytes.byteLength)
    expect(Buffer.byteLength(bytes.toString())).toBe(bytes.byteLength)
    expect(resultOf(l).structLogs[19]!.storage).toHaveProperty(word(5), word(19))
  })

  it('puts pre-execution errors (out of gas, stack) on the failing entry, not execution errors', async () => {
    const oog = step(0x55, 'SSTORE', { stack: [1n, 1n] })
    const l = logger()
    await l.onOpcode(oog, state)
    l.onFault(oog, 'out of gas')
    const revert = step(0xfd, 'REVERT', { stack: [0n, 0n] })
    await l.onOpcode(revert, state)
    l.onFault(revert, 'execution reverted')
    const underflow = step(0x01, 'ADD')
    await l.onOpcode(underflow, state)
    l.onFault(underflow, 'stack underflow (0 <=> 2)')
    l.onTxEnd({ gasUsed: 5n, output: new Uint8Array([9]), error: 'out of gas', reverted: false })
    const r = resultOf(l)
    expect(r.structLogs.map((e) => e.error)).toEqual(['out of gas', undefined, 'stack underflow (0 <=> 2)'])
    expect(Object.keys(r.structLogs[0]!)).toEqual(['pc', 'op', 'gas', 'gasCost', 'depth', 'error', 'stack', 'storage'])
    // a failure other than revert returns no data
    expect([r.failed, r.returnValue]).toEqual([true, '0x'])
  })

  it('returns the revert data of a reverted transaction', () => {
    const l = logger()
    l.onTxEnd({ gasUsed: 5n, output: new Uint8Array([0x08, 0xc3]), error: 'execution reverted', reverted: true })
    expect(resultOf(l)).toEqual({ gas: 5, failed: true, returnValue: '0x08c3', structLogs: [] })
  })

  it('fails with the stop reason once stopped', async () => {
    const l = logger()
    l.stop(new Error('execution timeout'))
    await l.onOpcode(step(0x00, 'STOP'), state)
    expect(() => l.result()).toThrow('execution timeout')
  })
})
