/**
 * The real `DebugBackend` (api/debug/backend.ts) over the EVM application and the transaction pool:
 * finds what to re-execute (a committed transaction's block, the state after a height), resolves the
 * request's tracer (tracing/tracer-registry.ts) and hands both to the application's trace executor;
 * encodes the raw block data (evm/store/block-header.ts, raw-block.ts). Only this file knows both sides.
 */
import type { CallArgs } from '../api/eth/backend.js'
import type { CallOverrides, DebugBackend, TracerRequest, TxTraceResult } from '../api/debug/backend.js'
import type { EvmApplication } from '../evm/app.js'
import { MissingStateError } from '../evm/errors.js'
import { encodeHeader } from '../evm/store/block-header.js'
import { encodeRawBlock, encodeRawReceipt } from '../evm/store/raw-block.js'
import { rawTxType } from '../evm/txs/raw-tx.js'
import { GenesisNotTraceableError, TraceTxNotFoundError } from '../evm/tracing/trace-errors.js'
import type { TracedBlock } from '../evm/tracing/trace-executor.js'
import { prepareTracer, type JsTracerEngine } from '../evm/tracing/tracer-registry.js'
import { decodeRawTx, type DecodedTx } from '../evm/txs/tx.js'
import { decodeImpersonatedTx } from '../evm/dev/impersonated-tx.js'
import type { TxRecord } from '../evm/store/evm-records.js'
import { bytesToHex, equalBytes } from '../primitives/hex.js'
import { keccak256 } from '../crypto/index.js'
import { placeStateChanges } from '../evm/dev/dev-block.js'
import type { EvmBlock } from '../evm/store/views.js'
import type { TxPool } from '../txpool/tx-pool.js'

export interface DebugBackendDeps {
  app: EvmApplication
  /** Pooled transactions for debug_getRawTransaction. */
  pool: Pick<TxPool, 'get'>
  /** The sandboxed JavaScript tracers; without it only built-in tracers are served. */
  js?: JsTracerEngine
}

export class NodeDebugBackend implements DebugBackend {
  constructor(private readonly deps: DebugBackendDeps) {}

  latestHeight(): number {
    return this.deps.app.latestHeight()
  }

  getBlockByNumber(height: number): Promise<EvmBlock | undefined> {
    return this.deps.app.getBlock(height)
  }

  getBlockByHash(hash: Uint8Array): Promise<EvmBlock | undefined> {
    return this.deps.app.getBlock(hash)
  }

  /** geth order: the transaction is looked up first (`transaction not found`), then the tracer. */
  async traceTransaction(hash: Uint8Array, request: TracerRequest): Promise<unknown> {
    const record = await this.deps.app.getTxRecord(hash)
    if (!record) throw new TraceTxNotFoundError()
    const block = await this.tracedBlock(record.height)
    const source = await prepareTracer(request, this.deps.js)
    return this.deps.app.traces.traceTransaction(block, record.index, source, request.timeoutMs)
  }

  async traceBlock(block: EvmBlock, request: TracerRequest): Promise<TxTraceResult[]> {
    const traced = await this.tracedBlock(block.number)
    const source = await prepareTracer(request, this.deps.js)
    return this.deps.app.traces.traceBlock(traced, source, request.timeoutMs)
  }

  async traceCall(args: CallArgs, height: number, overrides: CallOverrides, request: TracerRequest): Promise<unknown> {
    const at = await this.deps.app.stateAt(height)
    const source = await prepareTracer(request, this.deps.js)
    const { chainId: _chainId, ...callArgs } = args
    const req = { args: callArgs, stateOverrides: overrides.stateOverrides, blockOverrides: overrides.blockOverrides }
    return this.deps.app.traces.traceCall(at, req, source, request.timeoutMs)
  }

  /** A committed block with the state before it and its transactions decoded (senders recovered). */
  private async tracedBlock(height: number): Promise<TracedBlock> {
    const app = this.deps.app
    if (height <= app.earliestHeight()) throw new GenesisNotTraceableError()
    const [block, parent, records, devOps] = await Promise.all([
      app.getBlock(height),
      app.getBlock(height - 1),
      app.getBlockTxRecords(height),
      app.getBlockDevOps(height),
    ])
    if (!block || !parent || !records) throw new Error(`block ${height} or its parent is missing`)
    if (parent.number < app.lowestStateHeight()) throw new MissingStateError(parent.number, parent.stateRoot)
    const executed = new Set(records.map((r) => bytesToHex(r.hash)))
    return {
      env: {
        height,
        timestamp: block.timestamp,
        gasLimit: block.gasLimit,
        baseFee: block.baseFeePerGas,
        coinbase: block.miner,
        mixHash: block.mixHash,
      },
      hash: block.hash,
      parentStateRoot: parent.stateRoot,
      txs: records.map((r) => decodeRecordTx(r, app)),
      changes: placeStateChanges(devOps, (raw) => executed.has(bytesToHex(keccak256(raw)))),
    }
  }

  async getRawHeader(block: EvmBlock): Promise<Uint8Array> {
    return encodeHeader(block)
  }

  async getRawBlock(block: EvmBlock): Promise<Uint8Array> {
    const records = (await this.deps.app.getBlockTxRecords(block.number)) ?? []
    return encodeRawBlock(
      block,
      records.map((r) => r.raw),
    )
  }

  async getRawReceipts(block: EvmBlock): Promise<Uint8Array[]> {
    const records = (await this.deps.app.getBlockTxRecords(block.number)) ?? []
    return records.map((r) =>
      encodeRawReceipt({ type: rawTxType(r.raw), status: r.status, cumulativeGasUsed: r.cumulativeGasUsed, logs: r.logs }),
    )
  }

  async getRawTransaction(hash: Uint8Array): Promise<Uint8Array | undefined> {
    return (await this.deps.app.getTxRecord(hash))?.raw ?? this.deps.pool.get(hash)?.raw
  }
}

/**
 * A stored transaction decoded for re-execution, with the sender its record names: a dev chain's
 * impersonated transactions carry a placeholder signature that does not recover it (evm/dev/impersonated-tx.ts).
 */
function decodeRecordTx(r: TxRecord, app: EvmApplication): DecodedTx {
  if (!app.devOps) return decodeRawTx(r.raw, app.common)
  try {
    const tx = decodeRawTx(r.raw, app.common)
    if (equalBytes(tx.from, r.from)) return tx
  } catch {
    // a placeholder signature may not recover at all
  }
  return decodeImpersonatedTx(r.from, r.raw, r.raw, app.common)
}
