/**
 * The call tree of one transaction as geth's callTracer records it (eth/tracers/native/call.go): a
 * stack of open frames, each closed frame nested into its parent. callTracer renders the tree as
 * nested JSON, flatCallTracer flattens it Parity-style; both drive this recorder from their hooks.
 */
import { decodeRevertReason } from '../../vm-errors.js'
import type { Address, FrameEnter, FrameExit, FrameType, LogEvent, TxEndInfo, TxStartInfo } from '../hooks.js'

/** geth's error text for a frame that ended with REVERT (`vm.ErrExecutionReverted`). */
export const EXECUTION_REVERTED = 'execution reverted'

/** A log emitted in a frame (callTracer `withLog`). */
export interface CallLog {
  address: Address
  topics: Uint8Array[]
  data: Uint8Array
  /** How many child calls of the frame came before the log (geth PR 28389). */
  position: number
}

/** One call frame, with geth's field semantics. */
export interface CallFrame {
  type: FrameType
  from: Address
  /** Gas given to the frame; the transaction's gas limit for the top frame. */
  gas: bigint
  gasUsed: bigint
  /** undefined for a CREATE/CREATE2 that failed (geth drops `to`). */
  to: Address | undefined
  input: Uint8Array
  /** Return data; for a failed frame only the revert data of a REVERT. */
  output: Uint8Array | undefined
  error: string | undefined
  revertReason: string | undefined
  calls: CallFrame[]
  logs: CallLog[]
  /** undefined for STATICCALL, which carries no value in geth's hooks. */
  value: bigint | undefined
}

/** callTracer's options (geth `callTracerConfig`). */
export interface CallRecorderOptions {
  /** Record only the top frame (and its logs). */
  onlyTopCall: boolean
  /** Record logs, dropping those of failed frames. */
  withLog: boolean
}

function isCreate(type: FrameType): boolean {
  return type === 'CREATE' || type === 'CREATE2'
}

/** geth `callFrame.processOutput`: output on success; error, revert data and decoded reason on failure. */
function closeFrame(frame: CallFrame, exit: FrameExit): void {
  if (exit.error === undefined) {
    frame.output = exit.output.slice()
    return
  }
  frame.error = exit.error
  if (isCreate(frame.type)) frame.to = undefined
  const reverted = exit.reverted || exit.error === EXECUTION_REVERTED
  if (!reverted || exit.output.length === 0) return
  frame.output = exit.output.slice()
  frame.revertReason = decodeRevertReason(frame.output)
}

/** geth `clearFailedLogs`: a failed frame's logs, and all its descendants', were never emitted. */
function clearFailedLogs(frame: CallFrame, parentFailed: boolean): void {
  const failed = parentFailed || frame.error !== undefined
  if (failed) frame.logs = []
  for (const call of frame.calls) clearFailedLogs(call, failed)
}

/** Builds the call tree from the hooks; one recorder per transaction. */
export class CallRecorder {
  /** Open frames, outermost first. */
  private readonly stack: CallFrame[] = []
  private gasLimit = 0n

  constructor(private readonly options: CallRecorderOptions) {}

  txStart(tx: TxStartInfo): void {
    this.gasLimit = tx.gasLimit
  }

  /** Opens a frame; returns it, or undefined when it is not recorded (onlyTopCall). */
  enter(enter: FrameEnter): CallFrame | undefined {
    if (this.options.onlyTopCall && enter.depth > 0) return undefined
    const frame: CallFrame = {
      type: enter.type,
      from: enter.from.slice(),
      // geth reports the gas bought for the whole transaction on the top frame, not what is left
      // after intrinsic gas.
      gas: enter.depth === 0 ? this.gasLimit : enter.gas,
      gasUsed: 0n,
      to: enter.to.slice(),
      input: enter.input.slice(),
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
      value: enter.type === 'STATICCALL' ? undefined : enter.value,
    }
    this.stack.push(frame)
    return frame
  }

  /** Closes the innermost frame; returns it and the parent it was nested into (undefined for the top frame). */
  exit(exit: FrameExit): { frame: CallFrame; parent: CallFrame | undefined } | undefined {
    if (exit.depth === 0) {
      // The top frame's gasUsed is the receipt's, set at the end of the transaction.
      if (this.stack.length !== 1) return undefined
      closeFrame(this.stack[0]!, exit)
      return { frame: this.stack[0]!, parent: undefined }
    }
    if (this.options.onlyTopCall || this.stack.length <= 1) return undefined
    const frame = this.stack.pop()!
    frame.gasUsed = exit.gasUsed
    closeFrame(frame, exit)
    const parent = this.stack[this.stack.length - 1]!
    parent.calls.push(frame)
    return { frame, parent }
  }

  log(log: LogEvent): void {
    if (!this.options.withLog || (this.options.onlyTopCall && log.depth > 0)) return
    const frame = this.stack[this.stack.length - 1]
    if (!frame) return
    frame.logs.push({
      address: log.address.slice(),
      topics: log.topics.map((t) => t.slice()),
      data: log.data.slice(),
      position: frame.calls.length,
    })
  }

  txEnd(result: TxEndInfo): void {
    const top = this.stack[0]
    if (!top) return
    top.gasUsed = result.gasUsed
    if (this.options.withLog) clearFailedLogs(top, false)
  }

  /** The finished top frame; fails as geth does when the hooks did not balance. */
  top(): CallFrame {
    if (this.stack.length !== 1) throw new Error('incorrect number of top-level calls')
    return this.stack[0]!
  }
}
