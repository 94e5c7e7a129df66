/**
 * Re-execution for debug_trace* (geth eth/tracers/api.go), always on a private copy of a committed
 * state (archive state is kept: any height's root is readable), never on the consensus VM, and never
 * holding anything block production waits for:
 *
 * - a transaction: a copy at the parent block's state root, the block's earlier transactions replayed
 *   untraced (geth `StateAtTransaction`), then the transaction traced;
 * - a block: each transaction in order, each with a fresh tracer and its own timeout; a transaction
 *   whose trace fails gets `{txHash, error}` and the next ones still run on the right state (the copy
 *   is rebuilt, as geth's traceBlockParallel advances its state apart from the tracers), except when
 *   the answer outgrew its byte budget (trace-budget.ts), which fails the whole request;
 * - a call (trace-call.ts): the state after a block, with geth's state and block overrides.
 *
 * A trace that fails mid-execution (timeout, a tracer error) leaves the copy's checkpoints unbalanced
 * (the library has no abort: the throw unwinds past them), so that copy is dropped. Copies write to a
 * private overlay, never to the consensus batch.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVM, EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { EthereumJSError } from '@ethereumjs/util'
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm'
import type { Database } from '../../db/database.js'
import { hexToBytes } from '../../primitives/hex.js'
import { NodeError } from '../../utils/errors.js'
import { createExecutionBlock, effectiveGasPrice, type BlockEnv } from '../executor.js'
import type { StateAt } from '../state/state-copy.js'
import { createVmCopy } from '../state/state.js'
import { computeIntrinsicGas } from '../txs/intrinsic-gas.js'
import type { DecodedTx } from '../txs/tx.js'
import type { PlacedStateChange } from '../dev/dev-block.js'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { gethFrameError, type FinalRunState } from './frame-error.js'
import type { Tracer, TxEndInfo } from './hooks.js'
import { HooksAdapter } from './hooks-adapter.js'
import type { TraceCopy, TracedTx } from './trace-copy.js'
import { prepareTracedCall, type TraceCallRequest } from './trace-call.js'
import { TraceDeadline } from './trace-deadline.js'
import { TraceTimeoutError, TraceTooLargeError, TracerError, TracingFailedError } from './trace-errors.js'
import { releaseTracer, type TracerSource } from './tracer-registry.js'

export interface TraceExecutorDeps {
  db: Database
  common: Common
  blockchain: EVMMockBlockchainInterface
  /** Installs system contracts on each copy's VM (validator-admin.ts); default none. */
  prepareVm?: (vm: VM) => void
  /** Gas cap of debug_traceCall (json-rpc `gas-cap`, as eth_call); 0 = none. */
  gasCap: bigint
}

/** A committed block to re-execute. */
export interface TracedBlock {
  env: BlockEnv
  hash: Uint8Array
  /** State root after the parent block (the state the block ran on). */
  parentStateRoot: Uint8Array
  /** The block's executed transactions, in order. */
  txs: readonly DecodedTx[]
  /** A dev block's state changes (sets, evm/dev/dev-block.ts), each before the transaction at index `before`. */
  changes?: readonly PlacedStateChange[]
}

/** One entry of a block trace (geth `txTraceResult`): a result, or the error of a failed trace. */
export interface TxTraceResult {
  txHash: Uint8Array
  result?: unknown
  error?: string
}

export class TraceExecutor {
  constructor(private readonly deps: TraceExecutorDeps) {}

  /** debug_traceTransaction: the block's transactions before `index` untraced, then transaction `index` traced. */
  async traceTransaction(block: TracedBlock, index: number, source: TracerSource, timeoutMs: number): Promise<unknown> {
    try {
      const copy = await this.openCopy(block.parentStateRoot)
      const execBlock = createExecutionBlock(block.env, copy.vm.common)
      await replay(copy, execBlock, block, index)
      await applyChanges(copy, block, index)
      return await traceTx(copy, blockTx(block, execBlock, index), source, timeoutMs)
    } finally {
      source.close()
    }
  }

  /** debug_traceBlockBy*: every transaction traced with a fresh tracer; a failed one gets `error`. */
  async traceBlock(block: TracedBlock, source: TracerSource, timeoutMs: number): Promise<TxTraceResult[]> {
    try {
      return await this.traceEach(block, source, timeoutMs)
    } finally {
      source.close()
    }
  }

  private async traceEach(block: TracedBlock, source: TracerSource, timeoutMs: number): Promise<TxTraceResult[]> {
    let copy = await this.openCopy(block.parentStateRoot)
    let execBlock = createExecutionBlock(block.env, copy.vm.common)
    const results: TxTraceResult[] = []
    for (let i = 0; i < block.txs.length; i++) {
      const txHash = block.txs[i]!.hash
      await applyChanges(copy, block, i)
      try {
        results.push({ txHash, result: await traceTx(copy, blockTx(block, execBlock, i), source, timeoutMs) })
      } catch (err) {
        // the byte budget is the whole answer's: past it, the request fails rather than one entry
        if (!(err instanceof NodeError) || err instanceof TraceTooLargeError) throw err
        results.push({ txHash, error: err.message })
        if (i + 1 < block.txs.length) {
          copy = await this.openCopy(block.parentStateRoot)
          execBlock = createExecutionBlock(block.env, copy.vm.common)
          await replay(copy, execBlock, block, i + 1)
        }
      }
    }
    return results
  }

  /** debug_traceCall: `req` traced on the state after `at`, with its overrides. */
  async traceCall(at: StateAt, req: TraceCallRequest, source: TracerSource, timeoutMs: number): Promise<unknown> {
    try {
      const copy = await this.openCopy(at.stateRoot)
      const traced = await prepareTracedCall(copy, at, req, this.deps.gasCap, this.deps.common)
      return await traceTx(copy, traced, source, timeoutMs)
    } finally {
      source.close()
    }
  }

  /** A VM over a private copy of the state at `root`, one checkpoint held (like a block's). */
  async openCopy(root: Uint8Array): Promise<TraceCopy> {
    const vm = await createVmCopy(this.deps.db, this.deps.common.copy(), this.deps.blockchain, root)
    this.deps.prepareVm?.(vm)
    await vm.stateManager.checkpoint()
    return { vm, adapter: new HooksAdapter(vm.evm as EVM, vm.stateManager), gasUsed: 0n }
  }
}

/**
 * Runs the block's first `count` transactions on the copy untraced (geth replays a block's earlier
 * transactions without tracer), with the state changes placed among them.
 */
async function replay(copy: TraceCopy, execBlock: Block, block: TracedBlock, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await applyChanges(copy, block, i)
    const result = await runTx(copy.vm, { tx: block.txs[i]!.tx, block: execBlock, blockGasUsed: copy.gasUsed })
    copy.gasUsed += result.totalGasSpent
  }
}

/** Applies the block's state changes placed before its transaction `index`. */
async function applyChanges(copy: TraceCopy, block: TracedBlock, index: number): Promise<void> {
  for (const c of block.changes ?? []) if (c.before === index) await c.change.applyTo(copy.vm.stateManager as MerkleStateManager)
}

/** The traced form of transaction `index` of `block`. */
function blockTx(block: TracedBlock, execBlock: Block, index: number): TracedTx {
  const tx = block.txs[index]!
  const env = block.env
  return {
    tx: tx.tx,
    block: execBlock,
    info: {
      blockNumber: BigInt(env.height),
      blockHash: block.hash,
      timestamp: BigInt(env.timestamp),
      coinbase: env.coinbase,
      baseFee: env.baseFee,
      txIndex: index,
      txHash: tx.hash,
      from: tx.from,
      to: tx.to === undefined ? undefined : hexToBytes(tx.to),
      input: tx.tx.data,
      value: tx.value,
      gasLimit: tx.gasLimit,
      gasPrice: effectiveGasPrice(tx, env.baseFee),
      intrinsicGas: computeIntrinsicGas(tx),
    },
  }
}

/**
 * Traces one transaction on `copy` (geth `traceTx`): onTxStart, the execution with the hooks attached
 * and the deadline armed, onTxEnd, then the tracer's result. Past the deadline the tracer is stopped and
 * the trace fails with `execution timeout`, even when execution itself finished.
 */
export async function traceTx(copy: TraceCopy, traced: TracedTx, source: TracerSource, timeoutMs: number): Promise<unknown> {
  const tracer = await source.next()
  const deadline = new TraceDeadline(timeoutMs)
  const reader = copy.adapter.reader
  let result: RunTxResult
  try {
    await tracer.onTxStart?.(traced.info, reader)
    result = await copy.adapter.run(tracer, deadline, () =>
      runTx(copy.vm, { ...traced.runOpts, tx: traced.tx, block: traced.block, blockGasUsed: copy.gasUsed }),
    )
    copy.gasUsed += result.totalGasSpent
    await tracer.onTxEnd?.(txEndOf(result), reader)
  } catch (err) {
    throw failure(tracer, err)
  }
  if (deadline.expired) throw failure(tracer, new TraceTimeoutError())
  try {
    return await tracer.result()
  } catch (err) {
    throw failure(tracer, err)
  }
}

/** geth's view of how the transaction ended. */
function txEndOf(result: RunTxResult): TxEndInfo {
  const exec = result.execResult
  const err = exec.exceptionError
  return {
    gasUsed: result.totalGasSpent,
    output: exec.returnValue,
    error: err ? gethFrameError(err.error, exec.runState as FinalRunState | undefined) : undefined,
    reverted: err?.error === 'revert',
  }
}

/**
 * The error a failed trace reports: the timeout (the tracer is stopped), a refusal of the transaction
 * by the VM (geth `tracing failed: …`), or the tracer's own failure, whose message is the caller's.
 */
function failure(tracer: Tracer, err: unknown): NodeError {
  if (err instanceof TraceTimeoutError) tracer.stop?.(err)
  releaseTracer(tracer)
  if (err instanceof TraceTimeoutError) return err
  if (err instanceof NodeError) return err
  const message = err instanceof Error ? err.message.replace(/\s*\((?:vm hf|tx type)=.*$/s, '') : String(err)
  if (err instanceof EthereumJSError) return new TracingFailedError(message)
  return new TracerError(message)
}
