import { describe, expect, it } from 'vitest'
import { TracerConfigError } from '../../../../../src/evm/tracing/hooks.js'
import { createJsTracer, looksLikeJsTracer } from '../../../../../src/evm/tracing/js/index.js'
import { FakeState, OP, addr, hex, runTx, simpleFrame, txInfo, type FakeFrame } from './fake-trace.js'

const create = (code: string, tracerConfig?: Record<string, unknown>) => createJsTracer(code, { tracerConfig })

describe('JS tracer', () => {
  it('counts opcodes with step()', async () => {
    const tracer = await create(`{
      count: 0, names: {},
      step: function (log, db) { this.count++; var n = log.op.toString(); this.names[n] = (this.names[n] || 0) + 1 },
      fault: function (log, db) {},
      result: function (ctx, db) { return { count: this.count, names: this.names } }
    }`)
    expect(tracer.onOpcode).toBeDefined()
    const result = await runTx(tracer, simpleFrame([OP.PUSH1, OP.PUSH1, OP.ADD, OP.STOP]))
    expect(result).toEqual({ count: 4, names: { PUSH1: 2, ADD: 1, STOP: 1 } })
  })

  it('collects call frames with enter() and exit(), the top frame going to ctx', async () => {
    const tracer = await create(`{
      calls: [],
      enter: function (frame) {
        this.calls.push({ type: frame.getType(), from: toHex(frame.getFrom()), to: toHex(frame.getTo()),
          input: toHex(frame.getInput()), gas: frame.getGas(), value: frame.getValue().toString() })
      },
      exit: function (res) { this.calls.push({ gasUsed: res.getGasUsed(), output: toHex(res.getOutput()), error: res.getError() || null }) },
      fault: function () {},
      result: function (ctx) { return { calls: this.calls, type: ctx.type, to: toHex(ctx.to), output: toHex(ctx.output) } }
    }`)
    expect(tracer.onOpcode).toBeUndefined()
    const top: FakeFrame = {
      type: 'CALL',
      from: addr(1),
      to: addr(2),
      output: new Uint8Array([1]),
      body: [
        { op: OP.PUSH1 },
        {
          type: 'DELEGATECALL',
          from: addr(2),
          to: addr(3),
          input: new Uint8Array([0x12, 0x34]),
          gas: 700n,
          value: 9n,
          body: [{ op: OP.STOP }],
          gasUsed: 21n,
        },
        {
          type: 'CALL',
          from: addr(2),
          to: addr(4),
          gas: 800n,
          body: [{ op: OP.REVERT }],
          error: 'execution reverted',
          output: new Uint8Array([0xfe]),
        },
        { op: OP.STOP },
      ],
    }
    expect(await runTx(tracer, top)).toEqual({
      calls: [
        { type: 'DELEGATECALL', from: hex(addr(2)), to: hex(addr(3)), input: '0x1234', gas: 700, value: '9' },
        { gasUsed: 21, output: '0x', error: null },
        { type: 'CALL', from: hex(addr(2)), to: hex(addr(4)), input: '0x', gas: 800, value: '0' },
        { gasUsed: 1000, output: '0xfe', error: 'execution reverted' },
      ],
      type: 'CALL',
      to: hex(addr(2)),
      output: '0x01',
    })
  })

  it('reads state synchronously from step() through db', async () => {
    const state = new FakeState(
      new Map([
        [
          hex(addr(2)),
          {
            balance: 10n ** 30n,
            nonce: 7n,
            code: new Uint8Array([0x60, 0x00]),
            storage: new Map([[hex(new Uint8Array(32).fill(0).map((_, i) => (i === 31 ? 1 : 0))), new Uint8Array(32).fill(9)]]),
          },
        ],
      ]),
    )
    const tracer = await create(`{
      seen: [],
      step: function (log, db) {
        var a = log.contract.getAddress();
        this.seen.push({
          balance: db.getBalance(a).toString(), plusOne: db.getBalance(a).add(1).toString(16), nonce: db.getNonce(a),
          code: toHex(db.getCode(a)), slot1: toHex(db.getState(a, toWord('0x01'))), exists: db.exists(a), other: db.exists(toAddress('0x99'))
        })
      },
      fault: function () {},
      result: function (ctx, db) { return { seen: this.seen, atEnd: db.getBalance(toAddress('0x02')).toString() } }
    }`)
    const result = (await runTx(tracer, simpleFrame([OP.SLOAD]), state)) as { seen: unknown[]; atEnd: string }
    expect(result.seen).toEqual([
      {
        balance: (10n ** 30n).toString(),
        plusOne: (10n ** 30n + 1n).toString(16),
        nonce: 7,
        code: '0x6000',
        slot1: '0x' + '09'.repeat(32),
        exists: true,
        other: false,
      },
    ])
    expect(result.atEnd).toBe((10n ** 30n).toString())
  })

  it('gives ctx, log, stack, memory and contract as geth does', async () => {
    const tracer = await create(`{
      steps: [],
      step: function (log, db) {
        this.steps.push({ pc: log.getPC(), gas: log.getGas(), cost: log.getCost(), depth: log.getDepth(), refund: log.getRefund(),
          op: log.op.toNumber(), isPush: log.op.isPush(), stackLength: log.stack.length(),
          top: log.stack.length() > 0 ? log.stack.peek(0).toString(16) : null,
          second: log.stack.length() > 1 ? log.stack.peek(1).valueOf() : null,
          memLength: log.memory.length(), word: log.memory.length() >= 32 ? log.memory.getUint(0).toString(16) : null,
          slice: toHex(log.memory.slice(30, 34)), caller: toHex(log.contract.getCaller()), value: log.contract.getValue().toString(),
          input: toHex(log.contract.getInput()), error: log.getError() === undefined })
      },
      fault: function (log) { this.fault = log.getError() + ' at ' + log.op.toString() },
      result: function (ctx) {
        return { steps: this.steps, fault: this.fault, ctx: { type: ctx.type, from: toHex(ctx.from), to: toHex(ctx.to), input: toHex(ctx.input),
          gas: ctx.gas, gasUsed: ctx.gasUsed, gasPrice: ctx.gasPrice.toString(), intrinsicGas: ctx.intrinsicGas, value: ctx.value.toString(),
          block: ctx.block, output: toHex(ctx.output), blockHash: toHex(ctx.blockHash), txIndex: ctx.txIndex, txHash: toHex(ctx.txHash),
          coinbase: toHex(ctx.coinbase), error: ctx.error, time: typeof ctx.time } }
      }
    }`)
    const memory = new Uint8Array(32).fill(0).map((_, i) => i)
    const top: FakeFrame = {
      type: 'CALL',
      from: addr(1),
      to: addr(2),
      value: 5n,
      input: new Uint8Array([0xde, 0xad]),
      error: 'invalid opcode: INVALID',
      body: [
        { op: OP.PUSH2, stack: [2n ** 255n, 77n], memory, gas: 999n, cost: 3n },
        { op: OP.INVALID, fault: 'invalid opcode: INVALID' },
      ],
    }
    const result = (await runTx(tracer, top)) as Record<string, unknown>
    expect((result.steps as unknown[])[0]).toEqual({
      pc: 0,
      gas: 999,
      cost: 3,
      depth: 1,
      refund: 0,
      op: OP.PUSH2,
      isPush: true,
      stackLength: 2,
      top: '4d',
      second: 2 ** 255,
      memLength: 32,
      word: BigInt(hex(memory)).toString(16),
      slice: '0x1e1f0000',
      caller: hex(addr(1)),
      value: '5',
      input: '0xdead',
      error: true,
    })
    expect(result.fault).toBe('invalid opcode: INVALID at INVALID')
    expect(result.ctx).toEqual({
      type: 'CALL',
      from: hex(addr(1)),
      to: hex(addr(2)),
      input: '0xdead',
      gas: 100000,
      gasUsed: 42000,
      gasPrice: '1000000007',
      intrinsicGas: 21064,
      value: '5',
      block: 7,
      output: '0x',
      blockHash: '0x' + 'bb'.repeat(32),
      txIndex: 2,
      txHash: '0x' + 'aa'.repeat(32),
      coinbase: hex(addr(0xcb)),
      error: 'invalid opcode: INVALID',
      time: 'string',
    })
  })

  it('gives STATICCALL frames an undefined value, as geth', async () => {
    const tracer =
      await create(`{ values: [], enter: function (f) { this.values.push(f.getValue() === undefined ? 'none' : f.getValue().toString()) },
      exit: function () {}, fault: function () {}, result: function () { return this.values } }`)
    const top: FakeFrame = {
      type: 'CALL',
      from: addr(1),
      to: addr(2),
      body: [
        { type: 'STATICCALL', from: addr(2), to: addr(3), body: [] },
        { type: 'CALL', from: addr(2), to: addr(3), value: 4n, body: [] },
      ],
    }
    expect(await runTx(tracer, top)).toEqual(['none', '4'])
  })

  it('runs several traces at once, each reading state', async () => {
    const program = `{ sum: 0, step: function (log, db) { this.sum += db.getNonce(log.contract.getAddress()) }, fault: function () {}, result: function () { return this.sum } }`
    const results = await Promise.all(
      [1n, 2n, 3n].map(async (nonce) => {
        const state = new FakeState(new Map([[hex(addr(2)), { nonce }]]))
        return runTx(await create(program), simpleFrame([OP.PUSH1, OP.PUSH1, OP.ADD, OP.STOP]), state)
      }),
    )
    expect(results).toEqual([4, 8, 12])
  })

  it('omits txHash and txIndex for a call without a transaction', async () => {
    const tracer = await create(
      `{ fault: function () {}, result: function (ctx) { return [ctx.txHash === undefined, ctx.txIndex === undefined, ctx.type] } }`,
    )
    expect(
      await runTx(tracer, { ...simpleFrame([]), type: 'CREATE' }, new FakeState(), txInfo({ txHash: undefined, txIndex: undefined })),
    ).toEqual([true, true, 'CREATE'])
  })

  it('provides the helpers and bigInt', async () => {
    const tracer = await create(`{
      fault: function () {},
      result: function () {
        var a = bigInt('123456789012345678901234567890');
        return {
          hex: toHex([1, 2, 255]), word: toHex(toWord('0xabcd')), address: toHex(toAddress('0x0000000000000000000000000000000000001234')),
          longAddress: toHex(toAddress(toWord('0x01'))), contract: toHex(toContract(toAddress('0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0'), 1)),
          contract2: toHex(toContract2(toAddress('0x0000000000000000000000000000000000000000'), '0x00', '0x00')),
          precompiled: [isPrecompiled(toAddress('0x01')), isPrecompiled(toAddress('0x0a')), isPrecompiled(toAddress('0x0b'))],
          slice: toHex(slice([1, 2, 3, 4], 1, 3)),
          big: [a.add(1).toString(), a.subtract('1').toString(), a.multiply(2).toString(16), a.divide(bigInt(10)).toString(), a.mod(7).valueOf(),
            bigInt(255).toString(16), bigInt('ff', 16).toJSNumber(), bigInt(5).compare(6), bigInt(5).equals(5), bigInt(2).pow(70).toString(),
            bigInt(-5).abs().toString(), bigInt.isInstance(a), bigInt(9).greater(8), bigInt(1).shiftLeft(8).toString()],
          json: a,
          native: (2n ** 64n).toString()
        }
      }
    }`)
    const result = (await runTx(tracer, simpleFrame([]))) as Record<string, unknown>
    expect(result).toEqual({
      hex: '0x0102ff',
      word: '0x' + '00'.repeat(30) + 'abcd',
      address: '0x' + '00'.repeat(18) + '1234',
      longAddress: '0x' + '00'.repeat(19) + '01',
      // geth's CREATE example: 0x6ac7…dbf0 with nonce 1 creates 0x343c43a37d37dff08ae8c4a11544c718abb4fcf8.
      contract: '0x343c43a37d37dff08ae8c4a11544c718abb4fcf8',
      // EIP-1014 example 1: 0x4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38.
      contract2: '0x4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38',
      precompiled: [true, true, false],
      slice: '0x0203',
      big: [
        '123456789012345678901234567891',
        '123456789012345678901234567889',
        (123456789012345678901234567890n * 2n).toString(16),
        '12345678901234567890123456789',
        Number(123456789012345678901234567890n % 7n),
        'ff',
        255,
        -1,
        true,
        (2n ** 70n).toString(),
        '5',
        true,
        true,
        '256',
      ],
      json: '123456789012345678901234567890',
      native: (2n ** 64n).toString(),
    })
  })

  it('passes tracerConfig to setup() as a JSON string', async () => {
    const tracer = await create(
      `{ setup: function (cfg) { this.cfg = JSON.parse(cfg) }, fault: function () {}, result: function () { return this.cfg } }`,
      { limit: 3 },
    )
    expect(await runTx(tracer, simpleFrame([]))).toEqual({ limit: 3 })
    const noConfig = await create(
      `{ setup: function (cfg) { this.cfg = cfg }, fault: function () {}, result: function () { return this.cfg } }`,
    )
    expect(await runTx(noConfig, simpleFrame([]))).toBe('{}')
  })

  it('returns null when result() returns undefined', async () => {
    const tracer = await create(`{ fault: function () {}, result: function () {} }`)
    expect(await runTx(tracer, simpleFrame([]))).toBeNull()
  })

  it('checks the program shape as geth does', async () => {
    await expect(create(`{ fault: function () {} }`)).rejects.toBeInstanceOf(TracerConfigError)
    await expect(create(`{ fault: function () {} }`)).rejects.toThrow(/trace object must expose a function result\(\)/)
    await expect(create(`{ result: function () {} }`)).rejects.toThrow(/trace object must expose a function fault\(\)/)
    await expect(create(`{ result: function () {}, fault: function () {}, enter: function () {} }`)).rejects.toThrow(
      /both or none of enter\(\) and exit\(\)/,
    )
    await expect(
      create(`{ result: function () {}, fault: function () {}, setup: function () { throw new Error('bad config') } }`),
    ).rejects.toThrow(/Error: bad config/)
  })

  it('tells programs from tracer names', () => {
    expect(looksLikeJsTracer('callTracer')).toBe(false)
    expect(looksLikeJsTracer('  opcountTracer ')).toBe(false)
    expect(looksLikeJsTracer('')).toBe(false)
    expect(looksLikeJsTracer('{ step: function () {}, fault: function () {}, result: function () { return 1 } }')).toBe(true)
    expect(looksLikeJsTracer('{ broken: ')).toBe(true)
  })
})
