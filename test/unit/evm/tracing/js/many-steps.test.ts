/**
 * JS tracers driven through many opcodes, with stack and state reads from inside step(): each program sees
 * every step and returns what it counted. How long that takes is measured by `npm run bench` (trace
 * workload), not asserted here; the trace deadline is lifted so a loaded machine cannot fail the test.
 */
import { describe, expect, it } from 'vitest'
import type { OpcodeStep, Tracer } from '../../../../../src/evm/tracing/hooks.js'
import { createJsTracer, namedJsTracers } from '../../../../../src/evm/tracing/js/index.js'
import { FakeState, OP, addr, txInfo } from './fake-trace.js'

const STEPS = 20_000

async function runSteps(tracer: Tracer, state: FakeState): Promise<unknown> {
  await tracer.onTxStart?.(txInfo(), state)
  await tracer.onEnter?.(
    { type: 'CALL', depth: 0, from: addr(1), to: addr(2), input: new Uint8Array(0), gas: 1_000_000n, value: 0n },
    state,
  )
  const stack = [1n, 2n, 3n]
  const step: OpcodeStep = {
    pc: 0,
    op: OP.ADD,
    opName: 'ADD',
    gas: 1_000_000n,
    cost: 3n,
    depth: 0,
    stack,
    memory: new Uint8Array(64),
    returnData: new Uint8Array(0),
    refund: 0n,
    contract: addr(2),
    codeAddress: addr(2),
    caller: addr(1),
    callValue: 0n,
    input: new Uint8Array(0),
  }
  for (let i = 0; i < STEPS; i++) {
    step.pc = i
    await tracer.onOpcode?.(step, state)
  }
  await tracer.onExit?.({ depth: 0, output: new Uint8Array(0), gasUsed: 1n, error: undefined, reverted: false }, state)
  await tracer.onTxEnd?.({ gasUsed: 1n, output: new Uint8Array(0), error: undefined, reverted: false }, state)
  return tracer.result()
}

/** No deadline that a busy machine could hit: the test is about what the programs compute. */
const NO_DEADLINE = { tracerConfig: undefined, timeoutMs: 600_000 }

describe('JS tracers over many steps', () => {
  it('see every step, with stack peeks and state reads from inside step()', async () => {
    const state = new FakeState(new Map([['0x' + '00'.repeat(19) + '02', { balance: 5n }]]))
    expect(await runSteps(await createJsTracer(namedJsTracers.opcountTracer!, NO_DEADLINE), state)).toBe(STEPS)
    expect(await runSteps(await createJsTracer(namedJsTracers.unigramTracer!, NO_DEADLINE), state)).toEqual({ ADD: STEPS })
    const peeks = await createJsTracer(
      `{ s: 0, step: function (log) { this.s += log.stack.peek(0).valueOf() + log.stack.peek(2).valueOf() }, fault: function () {}, ` +
        `result: function () { return this.s } }`,
      NO_DEADLINE,
    )
    // The stack is [1, 2, 3] with 3 on top: peek(0) = 3, peek(2) = 1.
    expect(await runSteps(peeks, state)).toBe(4 * STEPS)
    const reads = await createJsTracer(
      `{ n: 0, step: function (log, db) { if (db.getBalance(log.contract.getAddress()).eq(5)) this.n++ }, fault: function () {}, ` +
        `result: function () { return this.n } }`,
      NO_DEADLINE,
    )
    expect(await runSteps(reads, state)).toBe(STEPS)
  }, 300_000)
})
