/**
 * geth's `flatCallTracer` (eth/tracers/native/call_flat.go): callTracer's tree flattened into Parity's
 * trace list (what Blockscout and Otterscan read): one entry per frame in depth-first order, each with
 * its `traceAddress` (child indexes from the top) and `subtraces`. tracerConfig `includePrecompiles`
 * keeps CALL/STATICCALLs to precompiles (dropped by default, as Parity does), `convertParityErrors`
 * renames geth's error texts to Parity's.
 */
import { bytesToHex } from '../../../primitives/hex.js'
import { toQuantity } from '../../../primitives/quantity.js'
import type { Tracer, TracerFactory, TxStartInfo } from '../hooks.js'
import { CallRecorder, EXECUTION_REVERTED, type CallFrame } from './call-recorder.js'
import { isPrecompiled } from './precompiles.js'
import { readFlags } from './tracer-config.js'

/** One Parity-style trace, in geth's field order (`flatCallFrame`). */
export interface FlatTraceJson {
  action: Record<string, string>
  blockHash: string | null
  blockNumber: number
  error?: string
  result?: Record<string, string>
  subtraces: number
  traceAddress: number[]
  transactionHash: string | null
  transactionPosition: number
  type: 'call' | 'create' | 'suicide'
}

/** geth `parityErrorMapping`; our `stack limit reached 1024` (vm-errors.ts) maps like geth's `… (1023)`. */
const PARITY_ERRORS: Record<string, string> = {
  'contract creation code storage out of gas': 'Out of gas',
  'out of gas': 'Out of gas',
  'gas uint64 overflow': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'execution reverted': 'Reverted',
  'return data out of bounds': 'Out of bounds',
  'stack limit reached 1024 (1023)': 'Out of stack',
  'stack limit reached 1024': 'Out of stack',
  'precompiled failed': 'Built-in failed',
  'invalid input length': 'Built-in failed',
}

/** geth `parityErrorMappingStartingWith` (`invalid opcode: 0xfe`, `out of gas: not enough gas for reentrancy sentry`…). */
const PARITY_ERROR_PREFIXES: [string, string][] = [
  ['out of gas:', 'Out of gas'],
  ['invalid opcode', 'Bad instruction'],
  ['stack underflow', 'Stack underflow'],
]

function toParityError(error: string): string {
  return PARITY_ERRORS[error] ?? PARITY_ERROR_PREFIXES.find(([prefix]) => error.startsWith(prefix))?.[1] ?? error
}

/** Where the transaction sits (geth `tracers.Context`); a traced call has no block hash, hash or position. */
interface TraceContext {
  blockHash: string | null
  blockNumber: number
  transactionHash: string | null
  transactionPosition: number
}

function contextOf(tx: TxStartInfo): TraceContext {
  const traced = tx.txHash !== undefined
  const blockHash = bytesToHex(tx.blockHash)
  return {
    blockHash: traced && /[1-9a-f]/.test(blockHash.slice(2)) ? blockHash : null,
    blockNumber: Number(tx.blockNumber),
    transactionHash: tx.txHash !== undefined ? bytesToHex(tx.txHash) : null,
    transactionPosition: tx.txIndex ?? 0,
  }
}

/** The action, result and type of a frame (geth newFlatCall / newFlatCreate / newFlatSelfdestruct). */
function describeFrame(frame: CallFrame): Pick<FlatTraceJson, 'action' | 'result' | 'type'> {
  const value: Record<string, string> = frame.value !== undefined ? { value: toQuantity(frame.value) } : {}
  switch (frame.type) {
    case 'CREATE':
    case 'CREATE2':
      return {
        action: { from: bytesToHex(frame.from), gas: toQuantity(frame.gas), init: bytesToHex(frame.input), ...value },
        result: {
          ...(frame.to !== undefined ? { address: bytesToHex(frame.to) } : {}),
          code: bytesToHex(frame.output ?? new Uint8Array()),
          gasUsed: toQuantity(frame.gasUsed),
        },
        type: 'create',
      }
    case 'SELFDESTRUCT':
      return {
        action: { address: bytesToHex(frame.from), balance: toQuantity(frame.value ?? 0n), refundAddress: bytesToHex(frame.to!) },
        type: 'suicide',
      }
    default:
      return {
        action: {
          callType: frame.type.toLowerCase(),
          from: bytesToHex(frame.from),
          gas: toQuantity(frame.gas),
          input: bytesToHex(frame.input),
          to: bytesToHex(frame.to!),
          ...value,
        },
        result: { gasUsed: toQuantity(frame.gasUsed), output: bytesToHex(frame.output ?? new Uint8Array()) },
        type: 'call',
      }
  }
}

/** geth `flatFromNested`: the frame, then each child's subtree with its index appended to the address. */
function flatten(frame: CallFrame, traceAddress: number[], context: TraceContext, convertErrors: boolean, out: FlatTraceJson[]): void {
  const { action, result, type } = describeFrame(frame)
  // A revert's output holds the revert reason; any other failure has no meaningful result.
  const keepResult = result !== undefined && (frame.error === undefined || frame.error === EXECUTION_REVERTED)
  out.push({
    action,
    blockHash: context.blockHash,
    blockNumber: context.blockNumber,
    ...(frame.error !== undefined ? { error: convertErrors ? toParityError(frame.error) : frame.error } : {}),
    ...(keepResult ? { result } : {}),
    subtraces: frame.calls.length,
    traceAddress,
    transactionHash: context.transactionHash,
    transactionPosition: context.transactionPosition,
    type,
  })
  frame.calls.forEach((child, i) => {
    flatten(child, [...traceAddress, i], context, convertErrors, out)
  })
}

/** Builds a flatCallTracer for one transaction. */
export const createFlatCallTracer: TracerFactory = ({ tracerConfig }) => {
  const config = readFlags('flatCallTracer', tracerConfig, ['convertParityErrors', 'includePrecompiles'] as const)
  // The inner call tracer runs with its defaults: no onlyTopCall, no logs (as geth).
  const recorder = new CallRecorder({ onlyTopCall: false, withLog: false })
  let context: TraceContext | undefined
  let stopped: Error | undefined
  const tracer: Tracer = {
    onTxStart: (tx) => {
      if (stopped) return
      recorder.txStart(tx)
      context = contextOf(tx)
    },
    onEnter: (enter) => {
      if (stopped) return
      const frame = recorder.enter(enter)
      // Child calls carry a value, zero for a STATICCALL (geth sets it on enter).
      if (frame && enter.depth > 0 && frame.value === undefined) frame.value = 0n
    },
    onExit: (exit) => {
      if (stopped) return
      const closed = recorder.exit(exit)
      if (closed?.parent === undefined || config.includePrecompiles) return
      const { frame, parent } = closed
      if ((frame.type === 'CALL' || frame.type === 'STATICCALL') && frame.to !== undefined && isPrecompiled(frame.to)) parent.calls.pop()
    },
    onTxEnd: (result) => {
      if (!stopped) recorder.txEnd(result)
    },
    result: () => {
      if (stopped) throw stopped
      const out: FlatTraceJson[] = []
      flatten(
        recorder.top(),
        [],
        context ?? { blockHash: null, blockNumber: 0, transactionHash: null, transactionPosition: 0 },
        config.convertParityErrors,
        out,
      )
      return out
    },
    stop: (reason) => {
      stopped = reason
    },
  }
  return tracer
}
