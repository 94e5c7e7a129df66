/**
 * Programs that throw, loop, allocate without bound or reach for the host: each ends the trace with a
 * clear error, the test process keeps running, and the next trace works.
 */
import { describe, expect, it } from 'vitest'
import { TracerConfigError } from '../../../../../src/evm/tracing/hooks.js'
import { createJsTracer } from '../../../../../src/evm/tracing/js/index.js'
import type { OpcodeStep, Tracer } from '../../../../../src/evm/tracing/hooks.js'
import { FakeState, OP, addr, runTx, simpleFrame, txInfo } from './fake-trace.js'

/**
 * The trace deadline of the looping programs. It also covers building the interpreter and evaluating the
 * program, which take a few hundred ms on a loaded machine: the loop must be what hits it.
 */
const LOOP_TIMEOUT_MS = 1_500

const opcodeStep = (): OpcodeStep => ({
  pc: 0,
  op: OP.ADD,
  opName: 'ADD',
  gas: 100n,
  cost: 3n,
  depth: 0,
  stack: [],
  memory: new Uint8Array(0),
  returnData: new Uint8Array(0),
  refund: 0n,
  contract: addr(2),
  codeAddress: addr(2),
  caller: addr(1),
  callValue: 0n,
  input: new Uint8Array(0),
})

const COUNTER = `{ n: 0, step: function () { this.n++ }, fault: function () {}, result: function () { return this.n } }`

/** A program whose step() runs `body` (after `this` setup) and whose result() returns "ok". */
const stepping = (body: string) => `{ step: function (log, db) { ${body} }, fault: function () {}, result: function () { return 'ok' } }`

async function expectTraceError(code: string, message: RegExp, options: { timeoutMs?: number } = {}): Promise<void> {
  const tracer = await createJsTracer(code, { tracerConfig: undefined, ...options })
  await expect(runTx(tracer, simpleFrame([OP.PUSH1, OP.STOP]))).rejects.toThrow(message)
  // A later trace in the same process is unaffected.
  const next = await createJsTracer(COUNTER, { tracerConfig: undefined })
  expect(await runTx(next, simpleFrame([OP.PUSH1, OP.PUSH1, OP.STOP]))).toBe(3)
}

describe('hostile JS tracers', () => {
  it('rejects a program that does not compile', async () => {
    const error = await createJsTracer('{ step: function( }', { tracerConfig: undefined }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TracerConfigError)
    expect((error as Error).message).toMatch(/^SyntaxError: .* at tracer\.js:1/)
  })

  it('rejects a program whose top level throws or is not an object', async () => {
    await expect(createJsTracer('(function () { throw new Error("nope") })()', { tracerConfig: undefined })).rejects.toThrow(/Error: nope/)
    await expect(createJsTracer('42', { tracerConfig: undefined })).rejects.toThrow(/trace object/)
  })

  it('fails with the JS error when step() throws, as geth words it', async () => {
    await expectTraceError(
      stepping('null.foo'),
      /^TypeError: cannot read property 'foo' of null at step \(tracer\.js:1:\d+\) {4}in server-side tracer function 'step'$/,
    )
    await expectTraceError(stepping('throw "plain"'), /^plain {4}in server-side tracer function 'step'$/)
  })

  it('fails with the JS error when result() throws', async () => {
    await expectTraceError(
      `{ fault: function () {}, result: function () { return undefinedThing.x } }`,
      /ReferenceError: 'undefinedThing' is not defined.*in server-side tracer function 'result'/,
    )
  })

  it('fails when a step reads outside the stack or memory', async () => {
    await expectTraceError(stepping('log.stack.peek(3)'), /tracer accessed out of bound stack: size 0, index 3/)
    await expectTraceError(stepping('log.memory.getUint(0)'), /tracer accessed out of bound memory: available 0, offset 0, size 32/)
    await expectTraceError(stepping('log.memory.slice(0, 2 * 1024 * 1024)'), /tracer reached limit for padding memory slice/)
  })

  it('stops an infinite loop in step() with execution timeout', async () => {
    const started = Date.now()
    await expectTraceError(stepping('for (;;) {}'), /^execution timeout {4}in server-side tracer function 'step'$/, {
      timeoutMs: LOOP_TIMEOUT_MS,
    })
    expect(Date.now() - started).toBeLessThan(LOOP_TIMEOUT_MS + 5_000)
  })

  it('stops an infinite loop that catches everything, and one in result()', async () => {
    await expectTraceError(stepping('for (;;) { try { for (;;) {} } catch (e) {} }'), /execution timeout/, { timeoutMs: LOOP_TIMEOUT_MS })
    await expectTraceError(
      `{ fault: function () {}, result: function () { while (true) {} } }`,
      /execution timeout {4}in server-side tracer function 'result'/,
      { timeoutMs: LOOP_TIMEOUT_MS },
    )
  })

  it('stops an infinite loop at the top level of the program', async () => {
    await expect(
      createJsTracer('(function () { for (;;) {} })()', { tracerConfig: undefined, timeoutMs: LOOP_TIMEOUT_MS }),
    ).rejects.toThrow(/execution timeout/)
  })

  it('stops unbounded allocation with out of memory', async () => {
    await expectTraceError(
      stepping('var a = []; for (;;) a.push({ x: a.length, y: [1, 2, 3] })'),
      /^out of memory {4}in server-side tracer function 'step'$/,
    )
    await expectTraceError(stepping('this.keep = []; for (;;) this.keep.push("x".repeat(65536) + this.keep.length)'), /out of memory/)
    await expectTraceError(stepping('this.keep = []; for (;;) this.keep.push(new Uint8Array(1 << 20))'), /out of memory/)
    await expectTraceError(stepping('var a = []; for (;;) a.push(new Array(10000).fill(a.length))'), /out of memory/)
    await expectTraceError(stepping('new ArrayBuffer(1e9)'), /out of memory/)
  }, 60_000)

  it('keeps a program that catches out of memory from growing further', async () => {
    await expectTraceError(stepping('var a = []; for (;;) { try { a.push(new Uint8Array(1 << 20)) } catch (e) {} }'), /execution timeout/, {
      timeoutMs: LOOP_TIMEOUT_MS,
    })
  })

  it('lets a program use about memoryLimitBytes, and no more', async () => {
    // 20 MiB of buffers: within the default 32 MiB, beyond a 12 MiB limit.
    const program = stepping('this.keep = []; for (var i = 0; i < 320; i++) this.keep.push(new Uint8Array(65536))')
    expect(await runTx(await createJsTracer(program, { tracerConfig: undefined }), simpleFrame([OP.STOP]))).toBe('ok')
    const limited = await createJsTracer(program, { tracerConfig: undefined, memoryLimitBytes: 12 * 1024 * 1024 })
    await expect(runTx(limited, simpleFrame([OP.STOP]))).rejects.toThrow(/out of memory/)
  })

  it('has no require, process, timers or host globals', async () => {
    await expectTraceError(stepping('require("fs")'), /ReferenceError: 'require' is not defined/)
    await expectTraceError(stepping('process.exit(1)'), /ReferenceError: 'process' is not defined/)
    await expectTraceError(stepping('setTimeout(function () {}, 1)'), /ReferenceError: 'setTimeout' is not defined/)
    await expectTraceError(stepping('this.constructor.constructor("return process")().exit(1)'), /ReferenceError: 'process' is not defined/)
    await expectTraceError(
      stepping('globalThis.process.mainModule.require("child_process")'),
      /TypeError: cannot read property 'mainModule' of undefined/,
    )
    await expectTraceError(stepping('fetch("http://127.0.0.1/")'), /ReferenceError: 'fetch' is not defined/)
  })

  it('sees only the tracer API among its globals', async () => {
    const tracer = await createJsTracer(
      `{ fault: function () {}, result: function () {
      return Object.getOwnPropertyNames(globalThis).filter(function (n) { return /^[a-z]/.test(n) }).sort()
    } }`,
      { tracerConfig: undefined },
    )
    expect(await runTx(tracer, simpleFrame([]))).toEqual([
      'bigInt',
      'decodeURI',
      'decodeURIComponent',
      'encodeURI',
      'encodeURIComponent',
      'escape',
      'eval',
      'globalThis',
      'isFinite',
      'isNaN',
      'isPrecompiled',
      'parseFloat',
      'parseInt',
      'slice',
      'toAddress',
      'toContract',
      'toContract2',
      'toHex',
      'toWord',
      'undefined',
      'unescape',
    ])
  })

  it('cannot run code later through promises or dynamic import', async () => {
    const tracer = await createJsTracer(stepping('Promise.resolve().then(function () { for (;;) {} }); this.p = import("fs")'), {
      tracerConfig: undefined,
    })
    expect(await runTx(tracer, simpleFrame([OP.STOP]))).toBe('ok')
  })

  it('survives deep recursion with a clear error', async () => {
    await expectTraceError(stepping('function f(n) { return f(n + 1) + 1 } f(0)'), /Maximum call stack size exceeded/)
  })

  it('keeps the first error: later hooks are skipped', async () => {
    const tracer = await createJsTracer(
      `{ n: 0, step: function () { this.n++; if (this.n === 2) throw new Error('second') }, fault: function () {}, result: function ` +
        `() { return this.n } }`,
      { tracerConfig: undefined },
    )
    await expect(runTx(tracer, simpleFrame([OP.PUSH1, OP.PUSH1, OP.PUSH1, OP.STOP]))).rejects.toThrow(
      /^Error: second at step .*in server-side tracer function 'step'$/,
    )
  })

  it('can be abandoned while a state read is pending', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const state = new FakeState()
    state.getBalance = async () => {
      await gate
      return 1n
    }
    const tracer = await createJsTracer(stepping('db.getBalance(log.contract.getAddress()); for (;;) {}'), { tracerConfig: undefined })
    await tracer.onTxStart?.(txInfo(), state)
    const pending = tracer.onOpcode?.(opcodeStep(), state)
    ;(tracer as Tracer & { dispose(): void }).dispose()
    release()
    await pending
    await expect(tracer.result()).rejects.toThrow(/tracer disposed/)
    const next = await createJsTracer(COUNTER, { tracerConfig: undefined })
    expect(await runTx(next, simpleFrame([OP.STOP]))).toBe(1)
  })

  it('stop() ends the trace with its reason', async () => {
    const tracer = await createJsTracer(COUNTER, { tracerConfig: undefined })
    tracer.stop?.(new Error('execution timeout'))
    await expect(runTx(tracer, simpleFrame([OP.STOP]))).rejects.toThrow(/^execution timeout$/)
  })
})
