import { describe, expect, it } from 'vitest'
import { createJsTracer, looksLikeJsTracer, namedJsTracers } from '../../../../../src/evm/tracing/js/index.js'
import { OP, addr, runTx, type FakeFrame } from './fake-trace.js'

/** PUSH1 PUSH1 ADD, a CALL into a frame that runs PUSH1 STOP, then JUMPDEST and RETURN at depth 1. */
const TX: FakeFrame = {
  type: 'CALL',
  from: addr(1),
  to: addr(2),
  body: [
    { op: OP.PUSH1, stack: [] },
    { op: OP.PUSH1, stack: [2n] },
    { op: OP.ADD, stack: [2n, 3n] },
    // CALL(gas, to, value, inOffset, inSize, outOffset, outSize), listed bottom → top.
    { op: OP.CALL, stack: [0n, 0n, 2n, 2n, 7n, 0xaan, 1000n], memory: new Uint8Array([0x11, 0x22, 0x33, 0x44]) },
    {
      type: 'CALL',
      from: addr(2),
      to: addr(0xaa),
      body: [
        { op: OP.PUSH1, stack: [] },
        { op: OP.STOP, stack: [1n] },
      ],
    },
    { op: OP.JUMPDEST, stack: [5n, 1n] },
    { op: OP.RETURN, stack: [5n, 1n, 0n, 0n], memory: new Uint8Array([0x11, 0x22, 0x33, 0x44]) },
  ],
}

async function run(name: string): Promise<unknown> {
  return runTx(await createJsTracer(namedJsTracers[name]!, { tracerConfig: undefined }), TX)
}

describe('named JS tracers', () => {
  it('serves geth’s names as programs', () => {
    expect(Object.keys(namedJsTracers).sort()).toEqual(['bigramTracer', 'evmdisTracer', 'opcountTracer', 'trigramTracer', 'unigramTracer'])
    for (const name of Object.keys(namedJsTracers)) expect(looksLikeJsTracer(name)).toBe(false)
  })

  it('opcountTracer counts every opcode, inner frames included', async () => {
    expect(await run('opcountTracer')).toBe(8)
  })

  it('unigramTracer counts each opcode', async () => {
    expect(await run('unigramTracer')).toEqual({ PUSH1: 3, ADD: 1, CALL: 1, STOP: 1, JUMPDEST: 1, RETURN: 1 })
  })

  it('bigramTracer counts consecutive pairs at the same depth', async () => {
    // As geth's: the first opcode of a depth only starts the next pair.
    expect(await run('bigramTracer')).toEqual({ 'PUSH1-PUSH1': 1, 'PUSH1-ADD': 1, 'ADD-CALL': 1, 'PUSH1-STOP': 1, 'JUMPDEST-RETURN': 1 })
  })

  it('trigramTracer counts triples, restarting when the depth changes', async () => {
    // As geth's: a change of depth resets the window and skips that opcode.
    expect(await run('trigramTracer')).toEqual({ '--PUSH1': 1, '-PUSH1-ADD': 1, 'PUSH1-ADD-CALL': 1, '--STOP': 1, '--RETURN': 1 })
  })

  it('evmdisTracer lists the top frame’s ops with pushed results and call details', async () => {
    expect(await run('evmdisTracer')).toEqual([
      { op: OP.PUSH1, depth: 1, result: ['2'], len: 2 },
      { op: OP.PUSH1, depth: 1, result: ['3'], len: 2 },
      { op: OP.ADD, depth: 1, result: ['3e8'] },
      {
        op: OP.CALL,
        depth: 1,
        result: ['1'],
        gas: 1000,
        to: 'aa',
        value: '7',
        input: { 0: 0x33, 1: 0x44 },
        error: null,
        return: {},
        ops: [
          { op: OP.PUSH1, depth: 2, result: ['1'], len: 2 },
          { op: OP.STOP, depth: 2, result: [] },
        ],
      },
      { op: OP.JUMPDEST, depth: 1, result: [], pc: 6 },
      { op: OP.RETURN, depth: 1, result: [] },
    ])
  })
})
