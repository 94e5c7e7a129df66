/**
 * `nodectl trace tx|block|call` run in-process against a real dev node: the call tree of an ERC-20
 * transfer that reverted (its reason on the top line and on the failed frame), a nested tree (calls,
 * delegatecall, staticcall, a precompile, creates, selfdestruct, a caught revert and out of gas),
 * `--json` as the node's result, prestateTracer, the struct logger's opcode table with `--limit`, a
 * JavaScript tracer read from a file, block traces, debug_traceCall on a view function and a Panic, and
 * failures as one line: an unknown transaction, bad flags, a node without debug, no node at all. The
 * rendering helpers (trace-render.ts) are also checked on frames made up here.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, Interface, Wallet, getCreateAddress, type TransactionRequest } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import TraceBlock from '../../src/commands/trace/block.js'
import TraceCall from '../../src/commands/trace/call.js'
import TraceTx from '../../src/commands/trace/tx.js'
import { describeRevertData, frameStatus, renderCallTree, renderStructLogs, type CallFrameJson } from '../../src/cli/trace-render.js'
import type { BlockJson, ReceiptJson } from '../../src/api/eth/format.js'
import type { StructLoggerResult } from '../../src/evm/tracing/struct-logger.js'
import type { AccountJson } from '../../src/evm/tracing/native/prestate-json.js'
import type { FlatTraceJson } from '../../src/evm/tracing/native/flat-call-tracer.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { jsonOf, runCli } from '../helpers/cli.js'

const CHAIN_ID = 31337n
const GWEI = 10n ** 9n
const [SENDER, OTHER] = devAccounts(2).map((a) => new Wallet(a.privateKey))
const FEES = { type: 2, chainId: CHAIN_ID, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI } as const
const SUPPLY = 1_000_000n
const UNKNOWN_HASH = '0x' + '11'.repeat(32)

const { Token } = compileContracts('Token.sol')
const { TraceTarget, TraceLib, TraceProbe } = compileContracts('Tracing.sol')
const token = new Interface(Token!.abi as never)
const probe = new Interface(TraceProbe!.abi as never)
const sender = SENDER!.address.toLowerCase()

/** The printed lines of a run. */
const out = (run: { stdout: string[] }): string[] => run.stdout.join('\n').split('\n')

describe('nodectl trace against a dev node', () => {
  let t: TestNode
  let node: string[]
  let nonce = 0
  let dir = ''
  const addr = { token: '', target: '', lib: '', probe: '' }
  const tx = { reverted: '', ok: '', run: '' }
  let revertedBlock = ''

  /** The result of a call, of the shape `T` the caller expects; throws on an error reply. */
  const call = async <T>(method: string, params: unknown[]): Promise<T> => {
    const r = await rpc(t.url, method, params)
    if (r.error) throw new Error(`${method}: ${r.error.message}`)
    return r.result as T
  }
  const send = async (request: TransactionRequest): Promise<{ hash: string; receipt: ReceiptJson }> => {
    const hash = await call<string>('eth_sendRawTransaction', [await SENDER!.signTransaction({ ...FEES, nonce: nonce++, ...request })])
    const receipt = await waitFor(
      async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [hash])).result,
      30_000,
      `receipt of ${hash}`,
    )
    return { hash, receipt }
  }
  const deploy = async (bytecode: string): Promise<string> => {
    const address = getCreateAddress({ from: SENDER!.address, nonce }).toLowerCase()
    expect((await send({ data: bytecode, gasLimit: 2_000_000n })).receipt.status).toBe('0x1')
    return address
  }

  beforeAll(async () => {
    t = await startTestNode()
    node = ['--node', t.url]
    dir = await mkdtemp(join(tmpdir(), 'nodectl-trace-'))
    addr.token = await deploy(Token!.bytecode + token.encodeDeploy([SUPPLY]).slice(2))
    addr.target = await deploy(TraceTarget!.bytecode)
    addr.lib = await deploy(TraceLib!.bytecode)
    addr.probe = await deploy(TraceProbe!.bytecode)
    // More than the sender holds; a gas limit is given, so it is mined (and fails) instead of being refused by estimation.
    const reverted = await send({
      to: addr.token,
      gasLimit: 100_000n,
      data: token.encodeFunctionData('transfer', [OTHER!.address, SUPPLY + 1n]),
    })
    expect(reverted.receipt.status).toBe('0x0')
    tx.reverted = reverted.hash
    revertedBlock = reverted.receipt.blockNumber
    const ok = await send({ to: addr.token, gasLimit: 100_000n, data: token.encodeFunctionData('transfer', [OTHER!.address, 250n]) })
    expect(ok.receipt.status).toBe('0x1')
    tx.ok = ok.hash
    const run = await send({
      to: addr.probe,
      value: 5n,
      gasLimit: 3_000_000n,
      data: probe.encodeFunctionData('run', [addr.target, addr.lib]),
    })
    expect(run.receipt.status).toBe('0x1')
    tx.run = run.hash
  }, 120_000)
  afterAll(async () => {
    await t?.destroy()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  describe('trace tx', () => {
    it('shows the reverted ERC-20 transfer: status and revert reason on the top line, the failed frame marked', async () => {
      const run = await runCli(TraceTx, [tx.reverted, ...node])
      expect(run.error).toBeUndefined()
      const [headline, top, ...rest] = out(run)
      expect(headline).toBe(`transaction ${tx.reverted} reverted: insufficient balance`)
      expect(top).toMatch(
        new RegExp(`^CALL ${sender} → ${addr.token}  transfer\\(address,uint256\\)  gas [\\d,]+  ✗ error: insufficient balance$`),
      )
      expect(rest).toEqual([])
      const gasUsed = BigInt((await call<ReceiptJson>('eth_getTransactionReceipt', [tx.reverted])).gasUsed)
      expect(top).toContain(`gas ${gasUsed.toLocaleString('en-US')}`)
    })

    it('shows a successful transfer as succeeded, with no error mark', async () => {
      const [headline, top] = out(await runCli(TraceTx, [tx.ok, ...node]))
      expect(headline).toBe(`transaction ${tx.ok} succeeded`)
      expect(top).toMatch(/transfer\(address,uint256\) {2}gas [\d,]+$/)
    })

    it('indents a nested call tree: every frame type, values, a precompile, failed inner frames', async () => {
      const run = await runCli(TraceTx, [tx.run, ...node])
      const lines = out(run)
      expect(lines[0]).toBe(`transaction ${tx.run} succeeded`)
      expect(lines[1]).toMatch(new RegExp(`^CALL ${sender} → ${addr.probe}  0x[0-9a-f]{8}  value 5 wei  gas [\\d,]+$`))
      const frames = lines.slice(2)
      expect(frames).toHaveLength(11)
      expect(frames.map((l) => /^[│ ]*[├└]─ (\S+)/.exec(l)?.[1])).toEqual([
        'CALL',
        'DELEGATECALL',
        'STATICCALL',
        'STATICCALL',
        'CREATE',
        'CREATE2',
        'CALL',
        'CALL',
        'CREATE',
        'CALL',
        'SELFDESTRUCT',
      ])
      expect(frames[0]).toMatch(new RegExp(`^├─ CALL ${addr.probe} → ${addr.target}  0x[0-9a-f]{8}  value 1 wei  gas [\\d,]+$`))
      expect(frames[3]).toContain('→ 0x0000000000000000000000000000000000000002  sha256 precompile')
      expect(frames[4]).toMatch(/CREATE .* new contract \([\d,]+ bytes of init code\)/)
      expect(frames[6]).toMatch(/✗ error: nope$/)
      expect(frames[7]).toMatch(/gas 20,000 {2}✗ error: out of gas$/)
      // the selfdestruct is the destroy call's child: one level deeper, under the last top-level frame
      expect(frames[9]).toMatch(/^└─ CALL/)
      expect(frames[10]).toMatch(new RegExp(`^   └─ SELFDESTRUCT 0x[0-9a-f]{40} → ${sender}  value 1 wei  gas 0$`))
    })

    it('--tracer-config withLog adds the logs among the calls', async () => {
      const lines = out(await runCli(TraceTx, [tx.run, ...node, '--tracer-config', '{"withLog":true}']))
      const logs = lines.filter((l) => /LOG 0x/.test(l))
      // probe's Started and Finished at the top, Pinged in ping, Born in each child that survived
      expect(logs.length).toBeGreaterThanOrEqual(4)
      expect(lines.findIndex((l) => l.includes('LOG '))).toBe(2) // Started comes first, before any call
      const transferLog = out(await runCli(TraceTx, [tx.ok, ...node, '--tracer-config', '{"withLog":true}']))
      expect(transferLog[2]).toMatch(new RegExp(`^└─ LOG ${addr.token} Transfer\\(address,address,uint256\\)  3 topics, 32 bytes of data$`))
    })

    it('--json prints the node’s callTracer result unchanged', async () => {
      const run = await runCli(TraceTx, [tx.reverted, ...node, '--json'])
      expect(run.error).toBeUndefined()
      const expected = await call('debug_traceTransaction', [tx.reverted, { tracer: 'callTracer' }])
      expect(jsonOf(run)).toEqual(expected)
      expect(expected).toMatchObject({ error: 'execution reverted', revertReason: 'insufficient balance' })
    })

    it('--tracer prestateTracer --json, and its human form as indented JSON', async () => {
      const expected = await call<Record<string, AccountJson>>('debug_traceTransaction', [tx.ok, { tracer: 'prestateTracer' }])
      expect(jsonOf(await runCli(TraceTx, [tx.ok, ...node, '--tracer', 'prestateTracer', '--json']))).toEqual(expected)
      expect(expected[addr.token].storage).toBeDefined()
      const human = await runCli(TraceTx, [tx.ok, ...node, '--tracer', 'prestateTracer'])
      const [headline, ...body] = out(human)
      expect(headline).toBe(`transaction ${tx.ok}`)
      expect(JSON.parse(body.join('\n'))).toEqual(expected)
      expect(body[1]).toMatch(/^ {2}"0x/)
      const diff = jsonOf<{ post: Record<string, AccountJson>; pre: Record<string, AccountJson> }>(
        await runCli(TraceTx, [tx.ok, ...node, '--tracer', 'prestateTracer', '--tracer-config', '{"diffMode":true}', '--json']),
      )
      expect(Object.keys(diff)).toEqual(['post', 'pre'])
    })

    it('--tracer 4byteTracer and flatCallTracer print their JSON', async () => {
      const ids = JSON.parse(
        out(await runCli(TraceTx, [tx.ok, ...node, '--tracer', '4byteTracer']))
          .slice(1)
          .join('\n'),
      )
      expect(ids).toEqual({ [`${token.getFunction('transfer')!.selector}-64`]: 1 })
      const flat = jsonOf<FlatTraceJson[]>(await runCli(TraceTx, [tx.run, ...node, '--tracer', 'flatCallTracer', '--json']))
      expect(flat[0]).toMatchObject({ type: 'call', transactionHash: tx.run })
    })

    it('--tracer struct --limit 5 prints the first five opcodes as a table', async () => {
      const run = await runCli(TraceTx, [tx.reverted, ...node, '--tracer', 'struct', '--limit', '5'])
      expect(run.error).toBeUndefined()
      const lines = out(run)
      expect(lines[0]).toBe(`transaction ${tx.reverted} failed: insufficient balance`)
      expect(lines[1]!.trim().split(/\s+/)).toEqual(['pc', 'op', 'gas', 'cost', 'depth'])
      const full = await call<StructLoggerResult>('debug_traceTransaction', [tx.reverted, { disableStack: true, disableStorage: true }])
      const rows = lines.slice(2, 7).map((l) => l.trim().split(/\s+/))
      expect(rows).toEqual(full.structLogs.slice(0, 5).map((s) => [String(s.pc), s.op, String(s.gas), String(s.gasCost), String(s.depth)]))
      expect(lines[7]).toBe(
        `first 5 steps (--limit 5); gas used ${full.gas.toLocaleString('en-US')}; failed: insufficient balance, returned ${full.returnValue}`,
      )
      expect(lines).toHaveLength(8)
      // --opcodes is the same tracer; --json keeps the node's stack
      const raw = jsonOf<StructLoggerResult>(await runCli(TraceTx, [tx.reverted, ...node, '--opcodes', '--limit', '5', '--json']))
      expect(raw.structLogs).toHaveLength(5)
      expect(raw.structLogs[1].stack).toEqual(['0x80'])
      const all = out(await runCli(TraceTx, [tx.ok, ...node, '--opcodes']))
      expect(all.at(-1)).toMatch(/^\d+ steps; gas used [\d,]+; succeeded, returned 0x0{63}1$/)
    })

    it('--tracer FILE.js runs a JavaScript tracer program from a file and prints its result', async () => {
      const file = join(dir, 'count-opcodes.js')
      await writeFile(
        file,
        `// counts the opcodes of each depth
{
  counts: {},
  step: function (log) { var d = log.getDepth(); this.counts[d] = (this.counts[d] || 0) + 1 },
  fault: function () {},
  result: function (ctx) { return { gasUsed: ctx.gasUsed, counts: this.counts } }
};
`,
      )
      const steps = (await call<StructLoggerResult>('debug_traceTransaction', [tx.run, { disableStack: true, disableStorage: true }]))
        .structLogs
      const byDepth: Record<string, number> = {}
      for (const s of steps) byDepth[s.depth] = (byDepth[s.depth] ?? 0) + 1
      const run = await runCli(TraceTx, [tx.run, ...node, '--tracer', file, '--timeout', '10s'])
      expect(run.error).toBeUndefined()
      const [headline, ...body] = out(run)
      expect(headline).toBe(`transaction ${tx.run}`)
      const receipt = await call<ReceiptJson>('eth_getTransactionReceipt', [tx.run])
      expect(JSON.parse(body.join('\n'))).toEqual({ gasUsed: Number(receipt.gasUsed), counts: byDepth })
      expect(jsonOf(await runCli(TraceTx, [tx.run, ...node, '--tracer', file, '--json']))).toEqual({
        gasUsed: Number(receipt.gasUsed),
        counts: byDepth,
      })
    })

    it('a named JavaScript tracer and a program that fails: the node’s error as one line', async () => {
      const count = jsonOf(await runCli(TraceTx, [tx.ok, ...node, '--tracer', 'opcountTracer', '--json']))
      expect(count).toBe((await call<StructLoggerResult>('debug_traceTransaction', [tx.ok, { disableStack: true }])).structLogs.length)
      const file = join(dir, 'throws.js')
      await writeFile(file, '{ step: function () { throw new Error("boom") }, fault: function () {}, result: function () { return 1 } }')
      const failed = await runCli(TraceTx, [tx.ok, ...node, '--tracer', file])
      expect(failed.error?.message).toMatch(
        /^node error -32000: Error: boom at step \(tracer\.js:1:\d+\) {4}in server-side tracer function 'step'$/,
      )
      expect(failed.exitCode).toBe(1)
    })

    it('--timeout: a trace past it ends with the node’s execution timeout', async () => {
      const run = await runCli(TraceTx, [tx.run, ...node, '--timeout', '1ns'])
      expect(run.error?.message).toBe('node error -32000: execution timeout')
      expect(run.exitCode).toBe(1)
    })

    it('an unknown transaction: one clear line and exit 1; with --json an error object', async () => {
      const run = await runCli(TraceTx, [UNKNOWN_HASH, ...node])
      expect(run.error?.message).toBe('node error -32000: transaction not found')
      expect(run.exitCode).toBe(1)
      expect(run.stdout).toEqual([])
      const json = await runCli(TraceTx, [UNKNOWN_HASH, ...node, '--json'])
      expect(jsonOf(json)).toEqual({ error: { message: 'node error -32000: transaction not found', code: -32000 } })
      expect(json.exitCode).toBe(1)
    })

    it('refuses bad flag values with one line and exit 2', async () => {
      const cases: [string[], RegExp][] = [
        [['--tracer-config', '{nope'], /^invalid --tracer-config: /],
        [['--tracer-config', '[1]'], /^invalid --tracer-config: want a JSON object/],
        [['--tracer', join(dir, 'missing.js')], /^cannot read tracer file ".*missing\.js": ENOENT$/],
        [['--limit', '5'], /^--limit applies to the struct logger only/],
        [['--timeout', 'soon'], /^invalid --timeout "soon": /],
      ]
      for (const [flags, message] of cases) {
        const run = await runCli(TraceTx, [tx.ok, ...node, ...flags])
        expect(run.error?.message, flags.join(' ')).toMatch(message)
        expect(run.exitCode, flags.join(' ')).toBe(2)
      }
      const badHash = await runCli(TraceTx, ['0x1234', ...node])
      expect(badHash.error?.message).toMatch(/^invalid transaction hash "0x1234"/)
      const unknownTracer = await runCli(TraceTx, [tx.ok, ...node, '--tracer', 'nopeTracer'])
      expect(unknownTracer.error?.message).toBe('node error -32000: tracer not found')
    })
  })

  describe('trace block', () => {
    it('traces every transaction of a block by number, by hash and latest', async () => {
      const run = await runCli(TraceBlock, [String(Number(revertedBlock)), ...node])
      expect(run.error).toBeUndefined()
      const lines = out(run)
      expect(lines[0]).toBe(`block ${Number(revertedBlock)}: 1 transaction`)
      expect(lines.slice(1)).toEqual([
        '',
        `#0 ${tx.reverted} reverted: insufficient balance`,
        expect.stringMatching(/^CALL .* ✗ error: insufficient balance$/),
      ])
      const expected = await call('debug_traceBlockByNumber', [revertedBlock, { tracer: 'callTracer' }])
      expect(jsonOf(await runCli(TraceBlock, [revertedBlock, ...node, '--json']))).toEqual(expected)
      const { hash } = await call<BlockJson>('eth_getBlockByNumber', [revertedBlock, false])
      expect(jsonOf(await runCli(TraceBlock, [hash, ...node, '--json']))).toEqual(expected)
      const latest = await runCli(TraceBlock, ['latest', ...node, '--tracer', 'struct', '--limit', '3'])
      expect(latest.error).toBeUndefined()
      expect(out(latest)[0]).toMatch(/^block latest: (no transactions|\d+ transactions?)$/)
    })

    it('shows a transaction whose trace failed, and refuses genesis and unknown blocks', async () => {
      const timedOut = out(await runCli(TraceBlock, [revertedBlock, ...node, '--timeout', '1ns']))
      expect(timedOut[2]).toBe(`#0 ${tx.reverted} ✗ trace failed: execution timeout`)
      const genesis = await runCli(TraceBlock, ['0', ...node])
      expect(genesis.error?.message).toBe('node error -32000: genesis is not traceable')
      expect(genesis.exitCode).toBe(1)
      const missing = await runCli(TraceBlock, ['999999', ...node])
      expect(missing.error?.message).toBe('node error -32000: block #999999 not found')
    })
  })

  describe('trace call', () => {
    it('traces a view function: the tree, and what it returned', async () => {
      const data = token.encodeFunctionData('balanceOf', [SENDER!.address])
      const run = await runCli(TraceCall, ['--to', addr.token, '--data', data, '--from', SENDER!.address, ...node])
      expect(run.error).toBeUndefined()
      const [headline, top] = out(run)
      const balance = SUPPLY - 250n
      expect(headline).toBe(`call succeeded, returned 0x${balance.toString(16).padStart(64, '0')}`)
      expect(top).toMatch(new RegExp(`^CALL ${sender} → ${addr.token}  balanceOf\\(address\\)  gas [\\d,]+$`))
      const json = jsonOf<CallFrameJson>(await runCli(TraceCall, ['--to', addr.token, '--data', data, ...node, '--json']))
      expect(AbiCoder.defaultAbiCoder().decode(['uint256'], json.output!)[0]).toBe(balance)
      // on an earlier block's state: before the transfer of 250
      const before = jsonOf<CallFrameJson>(
        await runCli(TraceCall, ['--to', addr.token, '--data', data, '--block', String(Number(revertedBlock)), ...node, '--json']),
      )
      expect(BigInt(before.output!)).toBe(SUPPLY)
    })

    it('a Panic reason with its meaning, the struct logger, value and gas flags', async () => {
      const data = probe.encodeFunctionData('divide', [0n])
      const [headline, top] = out(await runCli(TraceCall, ['--to', addr.probe, '--data', data, '--gas', '100000', ...node]))
      expect(headline).toBe('call reverted: panic 0x12: division or modulo by zero')
      expect(top).toMatch(/✗ error: panic 0x12: division or modulo by zero$/)
      const opcodes = out(await runCli(TraceCall, ['--to', addr.probe, '--data', data, '--opcodes', '--limit', '2', ...node]))
      expect(opcodes[0]).toBe('call failed: panic 0x12: division or modulo by zero')
      expect(opcodes).toHaveLength(5)
      const paying = jsonOf(
        await runCli(TraceCall, ['--from', SENDER!.address, '--to', OTHER!.address, '--value', '1gwei', ...node, '--json']),
      )
      expect(paying).toMatchObject({ type: 'CALL', value: '0x3b9aca00', gasUsed: '0x5208' })
    })

    it('refuses a call with neither --to nor --data, and bad addresses', async () => {
      const none = await runCli(TraceCall, [...node])
      expect(none.exitCode).toBe(2)
      expect(none.error?.message).toMatch(/^give --to/)
      const bad = await runCli(TraceCall, ['--to', '0x1234', ...node])
      expect(bad.error?.message).toMatch(/^invalid address "0x1234"/)
    })
  })

  it('a node without the debug namespace: the node’s error with a hint', async () => {
    const plain = await startTestNode({ flags: { 'json-rpc.api': 'eth,net,web3' } })
    try {
      const run = await runCli(TraceTx, [tx.ok, '--node', plain.url])
      expect(run.error?.message).toMatch(/^node error -32601: .*\(is debug in the node's --json-rpc\.api\?\)$/)
      expect(run.exitCode).toBe(1)
    } finally {
      await plain.destroy()
    }
  })

  it('an unreachable node: "cannot reach node at URL" and exit 1', async () => {
    const run = await runCli(TraceTx, [tx.ok, '--node', 'http://127.0.0.1:1'])
    expect(run.error?.message).toMatch(/^cannot reach node at http:\/\/127\.0\.0\.1:1/)
    expect(run.exitCode).toBe(1)
  })
})

describe('trace rendering', () => {
  const frame = (over: Partial<CallFrameJson>): CallFrameJson => ({
    type: 'CALL',
    from: '0x' + '11'.repeat(20),
    to: '0x' + '22'.repeat(20),
    gas: '0x10000',
    gasUsed: '0x5208',
    input: '0x',
    ...over,
  })
  const word = (n: bigint): string => n.toString(16).padStart(64, '0')

  it('decodes Error(string), Panic(uint256) with its meaning, and custom errors by name or selector', () => {
    const error = new Interface(['function Error(string)']).encodeFunctionData('Error', ['no way'])
    expect(describeRevertData(error)).toBe('no way')
    expect(describeRevertData(`0x4e487b71${word(0x11n)}`)).toBe('panic 0x11: arithmetic underflow or overflow')
    expect(describeRevertData(`0x4e487b71${word(0x99n)}`)).toBe('panic 0x99: unknown panic code: 0x99')
    const insufficient = new Interface(['error ERC20InsufficientBalance(address,uint256,uint256)']).encodeErrorResult(
      'ERC20InsufficientBalance',
      [OTHER!.address, 1n, 2n],
    )
    expect(describeRevertData(insufficient)).toBe('custom error ERC20InsufficientBalance(address,uint256,uint256)')
    expect(describeRevertData('0xdeadbeef')).toBe('custom error 0xdeadbeef')
    expect(describeRevertData('0x')).toBeUndefined()
  })

  it('words the status of a top frame', () => {
    expect(frameStatus(frame({}))).toBe('succeeded')
    expect(frameStatus(frame({ error: 'execution reverted' }))).toBe('reverted')
    expect(
      frameStatus(
        frame({
          error: 'execution reverted',
          revertReason: 'no',
          output: new Interface(['function Error(string)']).encodeFunctionData('Error', ['no']),
        }),
      ),
    ).toBe('reverted: no')
    expect(frameStatus(frame({ error: 'out of gas' }))).toBe('failed: out of gas')
  })

  it('draws the tree with logs at their positions, values in wei or ether', () => {
    const tree = renderCallTree(
      frame({
        value: '0xde0b6b3a7640000',
        input: token.encodeFunctionData('approve', [OTHER!.address, 1n]),
        logs: [{ address: '0x' + '33'.repeat(20), topics: [], data: '0x', position: '0x1' }],
        calls: [
          frame({ type: 'STATICCALL', input: '0x12345678', calls: [frame({ type: 'CALL', value: '0x2', error: 'out of gas' })] }),
          frame({ type: 'DELEGATECALL' }),
        ],
      }),
    )
    const a = '0x' + '11'.repeat(20)
    const b = '0x' + '22'.repeat(20)
    expect(tree.split('\n')).toEqual([
      `CALL ${a} → ${b}  approve(address,uint256)  value 1 ether  gas 21,000`,
      `├─ STATICCALL ${a} → ${b}  0x12345678  gas 21,000`,
      `│  └─ CALL ${a} → ${b}  value 2 wei  gas 21,000  ✗ error: out of gas`,
      `├─ LOG ${'0x' + '33'.repeat(20)} (anonymous)  0 topics, 0 bytes of data`,
      `└─ DELEGATECALL ${a} → ${b}  gas 21,000`,
    ])
  })

  it('shows an error column in the opcode table when a step failed', () => {
    const table = renderStructLogs({
      gas: 60000,
      failed: true,
      returnValue: '0x',
      structLogs: [
        { pc: 0, op: 'PUSH1', gas: 100, gasCost: 3, depth: 1 },
        { pc: 2, op: 'SSTORE', gas: 97, gasCost: 20000, depth: 1, error: 'out of gas' },
      ],
    })
    expect(table.split('\n')).toEqual([
      'pc  op      gas   cost  depth  error',
      ' 0  PUSH1   100      3      1',
      ' 2  SSTORE   97  20000      1  out of gas',
      '2 steps; gas used 60,000; failed',
    ])
  })
})
