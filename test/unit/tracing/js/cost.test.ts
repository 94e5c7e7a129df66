/**
 * What a JS tracer costs per opcode, per state read from inside step(), and to set up. The bounds are
 * loose (shared CI machines); the measured numbers are logged for the README.
 */
import { describe, expect, it } from 'vitest'
import type { OpcodeStep, Tracer } from '../../../../src/chain/evm/tracing/hooks.js'
import { createJsTracer, namedJsTracers } from '../../../../src/chain/evm/tracing/js/index.js'
import { FakeState, OP, addr, txInfo } from './fake-trace.js'

const STEPS = 20_000

async function microsPerStep(tracer: Tracer, state: FakeState): Promise<number> {
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
  const started = performance.now()
  for (let i = 0; i < STEPS; i++) {
    step.pc = i
    await tracer.onOpcode?.(step, state)
  }
  const elapsed = performance.now() - started
  await tracer.onExit?.({ depth: 0, output: new Uint8Array(0), gasUsed: 1n, error: undefined, reverted: false }, state)
  await tracer.onTxEnd?.({ gasUsed: 1n, output: new Uint8Array(0), error: undefined, reverted: false }, state)
  await tracer.result()
  return (elapsed * 1000) / STEPS
}

describe('JS tracer cost', () => {
  it('stays within tens of microseconds per step, state reads included', async () => {
    const state = new FakeState(new Map([['0x' + '00'.repeat(19) + '02', { balance: 5n }]]))
    // Warm up: V8 compiles the interpreter's WebAssembly in tiers during the first traces.
    await microsPerStep(await createJsTracer(namedJsTracers.unigramTracer!, { tracerConfig: undefined }), state)
    const setupStarted = performance.now()
    const opcount = await createJsTracer(namedJsTracers.opcountTracer!, { tracerConfig: undefined })
    const setupMs = performance.now() - setupStarted
    const counting = await microsPerStep(opcount, state)
    const unigram = await microsPerStep(await createJsTracer(namedJsTracers.unigramTracer!, { tracerConfig: undefined }), state)
    const stackReading = await microsPerStep(
      await createJsTracer(
        `{ s: 0, step: function (log) { this.s += log.stack.peek(0).valueOf() + log.stack.peek(2).valueOf() }, fault: function () {}, ` +
          `result: function () { return this.s } }`,
        { tracerConfig: undefined },
      ),
      state,
    )
    const reading = await microsPerStep(
      await createJsTracer(
        `{ n: 0, step: function (log, db) { if (db.getBalance(log.contract.getAddress()).eq(5)) this.n++ }, fault: function () {}, ` +
          `result: function () { return this.n } }`,
        { tracerConfig: undefined },
      ),
      state,
    )
    console.log(
      `JS tracer: setup ${setupMs.toFixed(1)} ms; per step: opcount ${counting.toFixed(1)} µs, unigram ${unigram.toFixed(1)} µs, two stack peeks ${stackReading.toFixed(1)} µs, contract address + db.getBalance ${reading.toFixed(1)} µs`,
    )
    expect(counting).toBeLessThan(100)
    expect(reading).toBeLessThan(1_000)
  }, 120_000)
})
