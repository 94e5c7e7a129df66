/**
 * JavaScript tracers through a real dev node (debug_traceTransaction, tracing/js): a program that
 * counts opcodes (checked against the struct logger), one that collects call frames with enter/exit
 * (checked against callTracer), geth's named JS tracers by name (checked against the struct log), and
 * hostile programs — an infinite loop, unbounded allocation, reaching for `require`, `process` and the
 * Function constructor, throwing in `step`, in `result` and in `setup`, a syntax error. Each hostile one
 * ends with a JSON-RPC error naming what happened, after which the node still answers and still
 * mines transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet, getCreateAddress, type TransactionRequest } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import type { ReceiptJson } from '../../src/api/eth/format.js'

const CHAIN_ID = 31337n
const GWEI = 10n ** 9n
const [SENDER, OTHER] = devAccounts(2).map((a) => new Wallet(a.privateKey))
/** Fixed fee fields (no estimation). */
const FEES = { type: 2, chainId: CHAIN_ID, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI } as const

const { Token } = compileContracts('Token.sol')
const { TraceTarget, TraceLib, TraceProbe } = compileContracts('Tracing.sol')
const token = new Interface(Token!.abi as never)
const probe = new Interface(TraceProbe!.abi as never)
const target = new Interface(TraceTarget!.abi as never)

interface StructLog {
  op: string
  depth: number
  pc: number
}

/** The struct logger's result, as far as these tests read it. */
interface StructTrace {
  structLogs: StructLog[]
}

interface Frame {
  type: string
  from: string
  to?: string
  gasUsed: string
  error?: string
  calls?: Frame[]
}

/** An inner frame as FRAME_COLLECTOR records it. */
interface CollectedFrame {
  type: string
  from: string
  to: string
  selector: string
  gas: number
  value: string | null
  depth: number
  gasUsed: number
  error: string | null
}

/** What FRAME_COLLECTOR returns. */
interface Collected {
  top: Record<string, unknown>
  balanceOfSender: string
  frames: CollectedFrame[]
}

/** Collects every inner frame with enter/exit (depth first, as callTracer nests them) and the top frame from ctx. */
const FRAME_COLLECTOR = `{
  frames: [],
  open: [],
  enter: function (frame) {
    var value = frame.getValue();
    var entry = { type: frame.getType(), from: toHex(frame.getFrom()), to: toHex(frame.getTo()), selector: toHex(frame.getInput()).slice(0, 10),
      gas: frame.getGas(), value: value === undefined ? null : value.toString(), depth: this.open.length + 1 };
    this.frames.push(entry);
    this.open.push(entry);
  },
  exit: function (result) {
    var entry = this.open.pop();
    entry.gasUsed = result.getGasUsed();
    entry.error = result.getError() || null;
  },
  fault: function () {},
  result: function (ctx, db) {
    return {
      top: { type: ctx.type, from: toHex(ctx.from), to: toHex(ctx.to), gasUsed: ctx.gasUsed, error: ctx.error || null, value: ctx.value.toString() },
      balanceOfSender: db.getBalance(ctx.from).toString(),
      frames: this.frames
    };
  }
}`

/** A program whose step() runs `body`. */
const stepping = (body: string): string =>
  `{ step: function (log, db) { ${body} }, fault: function () {}, result: function () { return 'unreachable' } }`

/** The hostile programs, the trace config they run with, and the error message they must end with. */
const HOSTILE: { name: string; tracer: string; timeout?: string; message: RegExp }[] = [
  {
    name: 'an infinite loop in step()',
    tracer: '{step(){for(;;){}}, result(){}, fault(){}}',
    timeout: '2s',
    message: /^execution timeout {4}in server-side tracer function 'step'$/,
  },
  {
    name: 'an infinite loop that catches every interruption',
    tracer: stepping('for (;;) { try { for (;;) {} } catch (e) {} }'),
    timeout: '2s',
    message: /execution timeout/,
  },
  {
    name: 'an infinite loop in result()',
    tracer: '{fault(){}, result(){ while (true) {} }}',
    timeout: '2s',
    message: /^execution timeout {4}in server-side tracer function 'result'$/,
  },
  {
    name: 'unbounded allocation',
    tracer: stepping('var a = []; for (;;) a.push(new Array(10000).fill(a.length))'),
    message: /^out of memory {4}in server-side tracer function 'step'$/,
  },
  {
    name: 'unbounded string growth',
    tracer: stepping('this.keep = []; for (;;) this.keep.push("x".repeat(65536) + this.keep.length)'),
    message: /out of memory/,
  },
  { name: 'a huge ArrayBuffer', tracer: stepping('new ArrayBuffer(1e9)'), message: /out of memory/ },
  {
    name: "require('fs')",
    tracer: stepping("require('fs').readFileSync('/etc/passwd')"),
    message: /^ReferenceError: 'require' is not defined at step \(tracer\.js:\d+:\d+\) {4}in server-side tracer function 'step'$/,
  },
  {
    name: 'process.exit()',
    tracer: stepping('process.exit(1)'),
    message: /ReferenceError: 'process' is not defined.*in server-side tracer function 'step'/,
  },
  {
    name: "this.constructor.constructor('return process')()",
    tracer: stepping("this.constructor.constructor('return process')().exit(1)"),
    message: /ReferenceError: 'process' is not defined/,
  },
  {
    name: 'globalThis.process',
    tracer: stepping("globalThis.process.mainModule.require('child_process')"),
    message: /TypeError: cannot read property 'mainModule' of undefined/,
  },
  {
    name: 'timers and fetch',
    tracer: stepping("setTimeout(function () {}, 0); fetch('http://127.0.0.1/')"),
    message: /ReferenceError: 'setTimeout' is not defined/,
  },
  {
    name: 'deep recursion',
    tracer: stepping('function f(n) { return f(n + 1) + 1 } f(0)'),
    message: /Maximum call stack size exceeded|stack overflow/i,
  },
  {
    name: 'a throw in step()',
    tracer: stepping("throw new Error('boom in step')"),
    message: /^Error: boom in step at step \(tracer\.js:\d+:\d+\) {4}in server-side tracer function 'step'$/,
  },
  { name: 'a thrown string in step()', tracer: stepping("throw 'plain'"), message: /^plain {4}in server-side tracer function 'step'$/ },
  {
    name: 'a throw in result()',
    tracer: "{fault: function () {}, result: function () { throw new RangeError('boom in result') }}",
    message: /^RangeError: boom in result at result \(tracer\.js:\d+:\d+\) {4}in server-side tracer function 'result'$/,
  },
  {
    name: 'a throw in setup()',
    tracer: "{setup: function () { throw new Error('bad setup') }, fault: function () {}, result: function () {}}",
    message: /Error: bad setup/,
  },
  {
    name: 'a syntax error',
    tracer: '{step: function (log) { log.op.toString( }, fault: function () {}, result: function () {}}',
    message: /^SyntaxError: .*tracer\.js:1/,
  },
  {
    name: 'a program without result()',
    tracer: '{step: function () {}, fault: function () {}}',
    message: /^TypeError: trace object must expose a function result\(\)/,
  },
]

describe('JavaScript tracers through debug_traceTransaction on a dev node', () => {
  let t: TestNode
  let nonce = 0
  const addr = { token: '', target: '', lib: '', probe: '' }
  const tx = { transfer: '', run: '' }
  let steps: StructLog[] = []
  let runSteps: StructLog[] = []

  /** The result of a call, of the shape `T` the caller expects; throws on an error reply. */
  const call = async <T>(method: string, params: unknown[]): Promise<T> => {
    const r = await rpc(t.url, method, params)
    if (r.error) throw new Error(`${method}: ${r.error.message}`)
    return r.result as T
  }
  const receiptOf = (hash: string): Promise<ReceiptJson> =>
    waitFor(async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [hash])).result, 30_000, `receipt of ${hash}`)
  const send = async (request: TransactionRequest): Promise<{ hash: string; receipt: ReceiptJson }> => {
    const hash = await call<string>('eth_sendRawTransaction', [await SENDER!.signTransaction({ ...FEES, nonce: nonce++, ...request })])
    return { hash, receipt: await receiptOf(hash) }
  }
  const deploy = async (bytecode: string): Promise<string> => {
    const address = getCreateAddress({ from: SENDER!.address, nonce }).toLowerCase()
    expect((await send({ data: bytecode, gasLimit: 2_000_000n })).receipt.status).toBe('0x1')
    return address
  }

  /** The node answers and mines: eth_blockNumber works, and a new transfer gets a receipt in a later block. */
  const expectNodeServing = async (): Promise<void> => {
    const before = BigInt(await call<string>('eth_blockNumber', []))
    const { receipt } = await send({ to: OTHER!.address, value: 1n, gasLimit: 21_000n })
    expect(receipt.status).toBe('0x1')
    expect(BigInt(receipt.blockNumber)).toBeGreaterThan(before)
  }

  beforeAll(async () => {
    t = await startTestNode()
    addr.token = await deploy(Token!.bytecode + token.encodeDeploy([1_000_000n]).slice(2))
    addr.target = await deploy(TraceTarget!.bytecode)
    addr.lib = await deploy(TraceLib!.bytecode)
    addr.probe = await deploy(TraceProbe!.bytecode)
    const transfer = await send({
      to: addr.token,
      gasLimit: 100_000n,
      data: token.encodeFunctionData('transfer', [OTHER!.address, 1_000n]),
    })
    expect(transfer.receipt.status).toBe('0x1')
    tx.transfer = transfer.hash
    const run = await send({
      to: addr.probe,
      value: 5n,
      gasLimit: 3_000_000n,
      data: probe.encodeFunctionData('run', [addr.target, addr.lib]),
    })
    expect(run.receipt.status).toBe('0x1')
    tx.run = run.hash
    steps = (await call<StructTrace>('debug_traceTransaction', [tx.transfer, { disableStack: true, disableStorage: true }])).structLogs
    runSteps = (await call<StructTrace>('debug_traceTransaction', [tx.run, { disableStack: true, disableStorage: true }])).structLogs
  }, 120_000)
  afterAll(async () => {
    await t?.destroy()
  })

  describe('programs of our own', () => {
    it('counts opcodes: the struct logger’s step count, with the shorthand method syntax too', async () => {
      const program =
        '{count: 0, step: function (log, db) { this.count++ }, fault: function (log, db) {}, result: function (ctx, db) { return ' +
        'this.count }}'
      expect(await call('debug_traceTransaction', [tx.transfer, { tracer: program }])).toBe(steps.length)
      expect(await call('debug_traceTransaction', [tx.run, { tracer: program }])).toBe(runSteps.length)
      expect(
        await call('debug_traceTransaction', [tx.run, { tracer: '{n: 0, step() { this.n++ }, fault() {}, result() { return this.n }}' }]),
      ).toBe(runSteps.length)
    })

    it('sees what the struct logger sees at each step: op, pc, depth', async () => {
      const program = `{ops: [], step: function (log) { this.ops.push([log.op.toString(), log.getPC(), log.getDepth()]) }, fault: function () {}, result: function () { return this.ops }}`
      expect(await call('debug_traceTransaction', [tx.run, { tracer: program }])).toEqual(runSteps.map((s) => [s.op, s.pc, s.depth]))
    })

    it('collects call frames with enter/exit: the frames callTracer reports', async () => {
      const collected = await call<Collected>('debug_traceTransaction', [tx.run, { tracer: FRAME_COLLECTOR }])
      const tree = await call<Frame>('debug_traceTransaction', [tx.run, { tracer: 'callTracer' }])
      const flat: (Frame & { depth: number })[] = []
      const walk = (frame: Frame, depth: number): void => {
        for (const child of frame.calls ?? []) {
          flat.push({ ...child, depth })
          walk(child, depth + 1)
        }
      }
      walk(tree, 1)
      expect(collected.frames.map((f) => [f.type, f.from, f.to, f.depth, f.gasUsed, f.error])).toEqual(
        flat.map((f) => [f.type, f.from, f.to, f.depth, Number(f.gasUsed), f.error ?? null]),
      )
      const types = collected.frames.map((f) => f.type)
      expect(types).toEqual(expect.arrayContaining(['CALL', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT']))
      // geth: a STATICCALL has no value; a CALL carries its own
      expect(collected.frames.find((f) => f.type === 'STATICCALL')!.value).toBeNull()
      expect(collected.frames[0]).toMatchObject({
        type: 'CALL',
        from: addr.probe,
        to: addr.target,
        value: '1',
        selector: target.getFunction('ping')!.selector,
      })
      const receipt = await receiptOf(tx.run)
      expect(collected.top).toEqual({
        type: 'CALL',
        from: SENDER!.address.toLowerCase(),
        to: addr.probe,
        gasUsed: Number(receipt.gasUsed),
        error: null,
        value: '5',
      })
      expect(BigInt(collected.balanceOfSender)).toBeGreaterThan(0n)
    })

    it('passes tracerConfig to setup() as JSON', async () => {
      const program = `{cfg: null, setup: function (c) { this.cfg = JSON.parse(c) }, fault: function () {}, result: function () { return this.cfg }}`
      expect(await call('debug_traceTransaction', [tx.transfer, { tracer: program, tracerConfig: { only: 'SSTORE', n: 2 } }])).toEqual({
        only: 'SSTORE',
        n: 2,
      })
    })

    it('runs in debug_traceBlockByNumber and debug_traceCall too', async () => {
      const program = '{n: 0, step: function () { this.n++ }, fault: function () {}, result: function () { return this.n }}'
      const receipt = await receiptOf(tx.transfer)
      expect(await call('debug_traceBlockByNumber', [receipt.blockNumber, { tracer: program }])).toEqual([
        { txHash: tx.transfer, result: steps.length },
      ])
      const viewSteps = (
        await call<StructTrace>('debug_traceCall', [{ to: addr.token, data: token.encodeFunctionData('totalSupply') }, 'latest'])
      ).structLogs.length
      expect(
        await call('debug_traceCall', [{ to: addr.token, data: token.encodeFunctionData('totalSupply') }, 'latest', { tracer: program }]),
      ).toBe(viewSteps)
    })
  })

  describe('geth’s named JavaScript tracers', () => {
    const histogram = (keys: string[]): Record<string, number> => {
      const out: Record<string, number> = {}
      for (const k of keys) out[k] = (out[k] ?? 0) + 1
      return out
    }

    it('opcountTracer: the number of opcodes', async () => {
      expect(await call('debug_traceTransaction', [tx.transfer, { tracer: 'opcountTracer' }])).toBe(steps.length)
      expect(await call('debug_traceTransaction', [tx.run, { tracer: 'opcountTracer' }])).toBe(runSteps.length)
    })

    it('unigramTracer: each opcode’s count', async () => {
      expect(await call('debug_traceTransaction', [tx.run, { tracer: 'unigramTracer' }])).toEqual(histogram(runSteps.map((s) => s.op)))
    })

    it('bigramTracer: consecutive pairs at the same depth', async () => {
      const pairs = runSteps.flatMap((s, i) => (i > 0 && runSteps[i - 1]!.depth === s.depth ? [`${runSteps[i - 1]!.op}-${s.op}`] : []))
      expect(await call('debug_traceTransaction', [tx.run, { tracer: 'bigramTracer' }])).toEqual(histogram(pairs))
    })

    it('trigramTracer: triples, the window restarting at each change of depth (as geth’s)', async () => {
      const triples: string[] = []
      let window = ['', '']
      let depth = 0
      for (const s of runSteps) {
        if (s.depth !== depth) {
          window = ['', '']
          depth = s.depth
          continue
        }
        triples.push(`${window[0]}-${window[1]}-${s.op}`)
        window = [window[1]!, s.op]
      }
      expect(await call('debug_traceTransaction', [tx.run, { tracer: 'trigramTracer' }])).toEqual(histogram(triples))
    })

    it('evmdisTracer: the top frame’s opcodes with what each pushed', async () => {
      const ops = (await call('debug_traceTransaction', [tx.transfer, { tracer: 'evmdisTracer' }])) as {
        op: number | string
        depth: number
        result: string[]
        len?: number
        pc?: number
      }[]
      expect(ops).toHaveLength(steps.length)
      expect(ops.every((o) => o.depth === 1)).toBe(true)
      // PUSH1 0x80 PUSH1 0x40 MSTORE: Solidity's free memory pointer
      expect(ops.slice(0, 3)).toEqual([
        { op: 0x60, depth: 1, result: ['80'], len: 2 },
        { op: 0x60, depth: 1, result: ['40'], len: 2 },
        { op: 0x52, depth: 1, result: [] },
      ])
      const jumpdest = ops.find((o) => o.op === 0x5b)
      expect(jumpdest?.pc).toBe(steps.find((s) => s.op === 'JUMPDEST')!.pc)
    })

    it('evmdisTracer on nested frames: only the top frame’s opcodes at the top, calls with their own ops', async () => {
      const ops = (await call('debug_traceTransaction', [tx.run, { tracer: 'evmdisTracer' }])) as {
        op: number | string
        depth: number
        ops?: { depth: number }[]
      }[]
      expect(ops.every((o) => o.depth === 1)).toBe(true)
      expect(ops).toHaveLength(runSteps.filter((s) => s.depth === 1).length)
      const calls = ops.filter((o) => o.ops !== undefined)
      expect(calls.map((o) => o.op)).toEqual([0xf1, 'DELEGATECALL', 'STATICCALL', 'STATICCALL', 0xf1, 0xf1, 0xf1])
      for (const c of calls) expect(c.ops!.every((o) => o.depth === 2)).toBe(true)
      // The init code of CREATE/CREATE2 is no frame: the CREATE's result is the address it made.
      const create = ops.find((o) => o.op === 0xf0) as { result: string[] } | undefined
      expect(BigInt(`0x${create!.result[0]}`)).toBe(BigInt(getCreateAddress({ from: addr.probe, nonce: 1 })))
    })
  })

  describe('hostile programs end with a clear error; the node keeps serving and mining', () => {
    for (const { name, tracer, timeout, message } of HOSTILE) {
      it(name, async () => {
        const started = Date.now()
        const reply = await rpc(t.url, 'debug_traceTransaction', [tx.transfer, timeout === undefined ? { tracer } : { tracer, timeout }])
        expect(reply.result).toBeUndefined()
        expect(reply.error?.code).toBe(-32000)
        expect(reply.error?.message).toMatch(message)
        expect(Date.now() - started).toBeLessThan(15_000)
        await expectNodeServing()
      }, 60_000)
    }

    it('a well-behaved program still runs afterwards', async () => {
      expect(await call('debug_traceTransaction', [tx.transfer, { tracer: 'opcountTracer' }])).toBe(steps.length)
    })

    it('a hostile program in a block trace fails its entry only', async () => {
      const receipt = await receiptOf(tx.transfer)
      const entries = await call('debug_traceBlockByNumber', [receipt.blockNumber, { tracer: stepping("throw new Error('boom')") }])
      expect(entries).toEqual([
        { txHash: tx.transfer, error: expect.stringMatching(/^Error: boom at step .*in server-side tracer function 'step'$/) },
      ])
      await expectNodeServing()
    })

    it('blocks keep coming while a program loops until its timeout', async () => {
      const before = BigInt(await call<string>('eth_blockNumber', []))
      const looping = rpc(t.url, 'debug_traceTransaction', [
        tx.run,
        { tracer: stepping('var until = Date.now() + 20; while (Date.now() < until) {}'), timeout: '3s' },
      ])
      await expectNodeServing()
      const reply = await looping
      expect(reply.error?.code).toBe(-32000)
      expect(reply.error?.message).toMatch(/^execution timeout/)
      expect(BigInt(await call<string>('eth_blockNumber', []))).toBeGreaterThan(before)
    }, 60_000)
  })
})
