/**
 * `trace`: debug_traceTransaction of two transactions of TraceBench.sol, `REPS` times each, one at a
 * time: the struct logger (default config) on `burn`, which loops over memory and storage until about
 * 1,000,000 gas is used, and `{tracer: "callTracer"}` on `fanOut`, whose 100 internal calls alternate
 * CALL and STATICCALL. Times run from sending the request to the last byte of the response (the
 * client's JSON.parse is left out). Skipped when the target does not serve debug_traceTransaction.
 * The `burn` trace answers about 35 MB: main.ts starts nodectl with a trace-response-max-size above it.
 */
import { Interface } from 'ethers'
import { getFees, getNonce, sendAndWait, type Receipt } from '../chain.js'
import { parseReply } from '../rpc-client.js'
import { compileContracts } from '../../helpers/solidity.js'
import { percentiles, round } from '../stats.js'
import type { BenchContext } from './context.js'

/** Traces timed per transaction. */
const REPS = 5

/** Gas limit of the `burn` transaction; it loops until less than BURN_RESERVE is left. */
const BURN_GAS = 1_000_000n
const BURN_RESERVE = 5_000n

/** Internal calls of the `fanOut` transaction. */
const CALLS = 100n

interface CallFrame {
  type: string
  calls?: CallFrame[]
}

/** Frames of a callTracer result by type, the top frame included. */
export function countFrames(frame: CallFrame, out: Record<string, number> = {}): Record<string, number> {
  out[frame.type] = (out[frame.type] ?? 0) + 1
  for (const c of frame.calls ?? []) countFrames(c, out)
  return out
}

/** Whether an RPC error says the method is not served (JSON-RPC -32601, or a node's own wording). */
export function isUnsupported(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err)
  return /\(-32601\)$/.test(message) || /method .*(not found|not available|not supported|does not exist)/i.test(message)
}

/** Times `REPS` traces of `hash` and returns the latencies with the last result and its response size. */
async function timeTrace<T>(
  ctx: BenchContext,
  hash: string,
  config: object | undefined,
): Promise<{ result: T; bytes: number; stats: Record<string, number> }> {
  const latencies: number[] = []
  let result: T | undefined
  let bytes = 0
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now()
    const body = await ctx.client.callRaw('debug_traceTransaction', config ? [hash, config] : [hash])
    latencies.push(performance.now() - t0)
    result = parseReply<T>('debug_traceTransaction', body)
    bytes = Buffer.byteLength(body)
  }
  const stats = {
    reps: REPS,
    p50Ms: percentiles(latencies).p50Ms,
    minMs: round(Math.min(...latencies)),
    maxMs: round(Math.max(...latencies)),
  }
  return { result: result!, bytes, stats }
}

export async function runTrace(ctx: BenchContext): Promise<void> {
  try {
    await ctx.client.call('debug_traceTransaction', ['0x' + '00'.repeat(32)])
  } catch (err) {
    if (isUnsupported(err)) {
      ctx.emit('trace', {
        skipped: `the target does not serve debug_traceTransaction (${err instanceof Error ? err.message : String(err)})`,
      })
      return
    }
    // any other answer (an unknown transaction) means the method is served
  }
  const { client, chainId } = ctx
  const { TraceBench, TraceBenchCallee } = compileContracts('TraceBench.sol')
  const abi = new Interface(TraceBench!.abi as never)
  const sender = ctx.accounts[0]!
  const fees = await getFees(client)
  let nonce = await getNonce(client, sender.address)
  const send = async (request: { to?: string; data: string; gasLimit: bigint }): Promise<Receipt> => {
    const receipt = await sendAndWait(client, await sender.signTransaction({ type: 2, chainId, nonce: nonce++, ...fees, ...request }))
    if (receipt.status !== '0x1') throw new Error(`trace: transaction ${receipt.transactionHash} failed`)
    return receipt
  }
  const bench = (await send({ data: TraceBench!.bytecode, gasLimit: 1_000_000n })).contractAddress!
  const callee = (await send({ data: TraceBenchCallee!.bytecode, gasLimit: 1_000_000n })).contractAddress!
  const burn = await send({ to: bench, data: abi.encodeFunctionData('burn', [BURN_RESERVE]), gasLimit: BURN_GAS })
  const fanOut = await send({ to: bench, data: abi.encodeFunctionData('fanOut', [callee, CALLS]), gasLimit: 2_000_000n })

  try {
    const { result, bytes, stats } = await timeTrace<{ gas: number; failed: boolean; structLogs: unknown[] }>(
      ctx,
      burn.transactionHash,
      undefined,
    )
    ctx.emit('debug_traceTransaction', {
      tracer: 'structLogger',
      gasUsed: result.gas,
      failed: result.failed,
      structLogs: result.structLogs.length,
      responseBytes: bytes,
      ...stats,
    })
  } catch (err) {
    ctx.emit('debug_traceTransaction', { tracer: 'structLogger', error: err instanceof Error ? err.message : String(err) })
  }
  try {
    const { result, bytes, stats } = await timeTrace<CallFrame & { gasUsed: string }>(ctx, fanOut.transactionHash, { tracer: 'callTracer' })
    const frames = countFrames(result)
    const total = Object.values(frames).reduce((a, b) => a + b, 0)
    ctx.emit('debug_traceTransaction', {
      tracer: 'callTracer',
      gasUsed: Number(result.gasUsed),
      frames: total,
      frameTypes: frames,
      responseBytes: bytes,
      ...stats,
    })
  } catch (err) {
    ctx.emit('debug_traceTransaction', { tracer: 'callTracer', error: err instanceof Error ? err.message : String(err) })
  }
}
