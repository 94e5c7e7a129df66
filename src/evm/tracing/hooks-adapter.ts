/**
 * Turns the events of an ethereumjs EVM (`beforeMessage` and `afterMessage`, which open and close a
 * frame) and the opcode probes and hooks (opcode-probes.ts) into the hooks of one Tracer
 * (hooks.ts), the way geth's interpreter calls its tracing hooks (core/vm/evm.go captureBegin /
 * captureEnd, interpreter.go OnOpcode / OnFault):
 *
 * - frames: geth's type (the opening opcode tells CALLCODE from CALL, and STATICCALL from a CALL made
 *   inside a static frame), `from`/`to` as geth passes them (DELEGATECALL and CALLCODE run the callee's
 *   code for the caller's account: from = the calling contract, to = the code's address), the gas
 *   given and used, geth's error texts; a SELFDESTRUCT is reported as an enter/exit pair one level
 *   down, and a call refused before it starts (call depth, balance) as a frame that failed at once;
 * - opcodes: only when the tracer has `onOpcode` are the per-opcode hooks installed (from then on
 *   every opcode of the copy pays an await); they read the interpreter's state in place instead of
 *   ethereumjs' `step` event, whose memory copy per opcode is quadratic in memory-growing loops. geth's
 *   `gasCost` of a CALL-family opcode includes the gas handed to the callee (EIP-150: all but 1/64 of
 *   what is left, at most what the caller asked);
 * - faults: when a frame fails inside the interpreter (revert included), `onFault` gets the frame's
 *   last opcode, as geth's interpreter calls OnFault for the opcode that failed.
 *
 * Every listener takes ethereumjs' 2-parameter form, so a hook's promise is awaited before execution
 * goes on; a hook that throws (or the deadline) unwinds the EVM.
 */
import type { EVM, EVMResult, Message } from '@ethereumjs/evm'
import type { StateManagerInterface } from '@ethereumjs/common'
import { generateAddress, generateAddress2, type Address } from '@ethereumjs/util'
import { bigintToBytes } from '../../primitives/hex.js'
import { gethFrameError, isOpcodeFault, type FinalRunState } from './frame-error.js'
import type { FrameType, OpcodeStep, TraceStateReader, Tracer } from './hooks.js'
import { STACK_LIMIT, frameTypeOf, gethOpName, isCallOpcode } from './opcodes.js'
import { installOpcodeHooks, installOpcodeProbes, wordToAddress, type OpcodeProbe, type OpcodeStepProbe } from './opcode-probes.js'
import { EventLoopYield } from '../../utils/event-loop-yield.js'
import { frameAddress, memoryBuffer, readStack, type RunState } from '../state/ethereumjs-run-state.js'
import { createStateReader } from './state-reader.js'
import type { TraceDeadline } from './trace-deadline.js'

const EMPTY = new Uint8Array(0)
const INVALID_OPCODE = 0xfe
const WORD = 32n
/** geth `params.CallStipend`: gas a value-carrying CALL adds for the callee. */
const CALL_STIPEND = 2_300n
/** EIP-150: a call may pass on all but 1/64 of the gas left. */
const CALL_GAS_RETAINED_DIVISOR = 64n

/** One open call frame. */
interface Frame {
  depth: number
  /** The frame's last opcode (reported to onFault when the frame fails). */
  lastStep: OpcodeStep | undefined
}

/** What a call opcode's probe keeps until the opcode finishes. */
interface PendingCall {
  entered: number
  gas: bigint
  /** The opcode's stack arguments, top first. */
  args: bigint[]
}

type Resolve = (value?: unknown) => void

export class HooksAdapter implements OpcodeProbe, OpcodeStepProbe {
  readonly reader: TraceStateReader
  active = false
  stepping = false
  private opcodeHooks = false
  private tracer: Tracer | undefined
  private deadline: TraceDeadline | undefined
  private frames: Frame[] = []
  private pendingOpcode: number | undefined
  private entered = 0
  private readonly loop = new EventLoopYield()

  // Two parameters each (Function.length 2): ethereumjs then awaits the listener; resolving with the
  // hook's promise passes its rejection on to the EVM.
  private readonly onBeforeMessage = (message: Message, resolve?: Resolve): void => resolve?.(this.enter(message))
  private readonly onAfterMessage = (result: EVMResult, resolve?: Resolve): void => resolve?.(this.exit(result))

  constructor(
    private readonly evm: EVM,
    private readonly sm: StateManagerInterface,
  ) {
    this.reader = createStateReader(sm)
    installOpcodeProbes(evm, this, async (address: Address) => (await sm.getAccount(address))?.balance ?? 0n)
  }

  /** Runs `execute` (one transaction) with `tracer` attached and `deadline` enforced, then detaches. */
  async run<T>(tracer: Tracer, deadline: TraceDeadline, execute: () => Promise<T>): Promise<T> {
    this.tracer = tracer
    this.deadline = deadline
    this.frames = []
    this.pendingOpcode = undefined
    this.active = true
    if (tracer.onOpcode) {
      this.opcodeHooks ||= installOpcodeHooks(this.evm, this)
      this.stepping = true
    }
    const events = this.evm.events
    events.on('beforeMessage', this.onBeforeMessage)
    events.on('afterMessage', this.onAfterMessage)
    try {
      return await execute()
    } finally {
      events.off('beforeMessage', this.onBeforeMessage)
      events.off('afterMessage', this.onAfterMessage)
      this.active = false
      this.stepping = false
      this.tracer = undefined
      this.deadline = undefined
    }
  }

  // ─── messages ───────────────────────────────────────────────────────────

  private enter(message: Message): Promise<void> | void {
    this.deadline!.check()
    this.entered++
    const opened = this.pendingOpcode
    this.pendingOpcode = undefined
    const isCreate = message.to === undefined
    this.frames.push({ depth: message.depth, lastStep: undefined })
    const onEnter = this.tracer!.onEnter
    if (!onEnter) return
    const type: FrameType = message.depth === 0 ? (isCreate ? 'CREATE' : 'CALL') : (frameTypeOf(opened ?? -1) ?? fallbackFrameType(message))
    return this.enterFrame(message, type)
  }

  private async enterFrame(message: Message, type: FrameType): Promise<void> {
    let from = message.caller.bytes
    let to: Uint8Array
    if (message.to === undefined) to = await this.createdAddress(message)
    else if (type === 'DELEGATECALL') [from, to] = [message.to.bytes, message.codeAddress.bytes]
    else if (type === 'CALLCODE') to = message.codeAddress.bytes
    else to = message.to.bytes
    await this.tracer!.onEnter!(
      { type, depth: message.depth, from, to, input: message.data, gas: message.gasLimit, value: message.value },
      this.reader,
    )
  }

  /** The address a creation message will deploy to (ethereumjs `_generateAddress`: the nonce is already bumped). */
  private async createdAddress(message: Message): Promise<Uint8Array> {
    if (message.salt) return generateAddress2(message.caller.bytes, message.salt, message.data)
    const nonce = (await this.sm.getAccount(message.caller))?.nonce ?? 1n
    return generateAddress(message.caller.bytes, bigintToBytes(nonce > 0n ? nonce - 1n : 0n))
  }

  private async exit(result: EVMResult): Promise<void> {
    this.deadline!.check()
    const frame = this.frames.pop()
    if (!frame) return
    const exec = result.execResult
    const err = exec.exceptionError
    const error = err ? gethFrameError(err.error, exec.runState as FinalRunState | undefined) : undefined
    const tracer = this.tracer!
    if (err && error !== undefined && frame.lastStep && tracer.onFault && isOpcodeFault(err.error))
      await tracer.onFault(frame.lastStep, error, this.reader)
    if (tracer.onExit) {
      await tracer.onExit(
        { depth: frame.depth, output: exec.returnValue, gasUsed: exec.executionGasUsed, error, reverted: err?.error === 'revert' },
        this.reader,
      )
    }
  }

  // ─── opcodes ────────────────────────────────────────────────────────────

  onOpcode(runState: RunState, cost: bigint, gasLeft: bigint, memoryWords: bigint): Promise<void> | void {
    const pause = this.loop.poll()
    if (pause !== undefined) return pause.then(() => this.step(runState, cost, gasLeft, memoryWords))
    return this.step(runState, cost, gasLeft, memoryWords)
  }

  private step(runState: RunState, cost: bigint, gasLeft: bigint, memoryWords: bigint): Promise<void> | void {
    this.deadline!.tick()
    const frame = this.frames.at(-1)
    if (!frame) return
    // The byte itself: ethereumjs runs every undefined byte as its INVALID entry, geth names the byte.
    const op = runState.code[runState.programCounter] ?? INVALID_OPCODE
    const { env } = runState
    const values = readStack(runState)
    let gasCost = cost
    if (isCallOpcode(op)) gasCost += callGas(gasLeft - cost, values.at(-1) ?? 0n)
    const step: OpcodeStep = {
      pc: runState.programCounter,
      op,
      opName: gethOpName(op),
      gas: gasLeft,
      cost: gasCost,
      depth: env.depth,
      stack: values,
      memory: memoryView(memoryBuffer(runState), Number(memoryWords * WORD)),
      returnData: runState.returnBytes,
      refund: runState.gasRefund,
      contract: env.address.bytes,
      // a creation frame's env has none (ethereumjs spreads the Message, losing its getter): its own address
      codeAddress: (env.codeAddress ?? env.address).bytes,
      caller: env.caller.bytes,
      callValue: env.callValue,
      input: env.callData,
    }
    frame.lastStep = step
    return this.tracer!.onOpcode!(step, this.reader)
  }

  // ─── opcode probes ──────────────────────────────────────────────────────

  tick(): void {
    this.deadline!.tick()
  }

  pause(): Promise<void> | undefined {
    return this.loop.poll()
  }

  beforeFrameOpcode(op: number, runState: RunState): PendingCall | undefined {
    this.pendingOpcode = op
    if (!isCallOpcode(op) || runState.stack.length < 6) return undefined
    return { entered: this.entered, gas: runState.messageGasLimit ?? 0n, args: runState.stack.peek(op === 0xf1 || op === 0xf2 ? 7 : 6) }
  }

  /** Reports a call that was refused before its frame started (geth still enters and exits it). */
  async afterFrameOpcode(op: number, runState: RunState, token: unknown): Promise<void> {
    this.pendingOpcode = undefined
    const frame = this.frames.at(-1)
    if (!frame) return
    const pending = token as PendingCall | undefined
    if (!pending || pending.entered !== this.entered) return
    const tracer = this.tracer!
    if (!tracer.onEnter && !tracer.onExit) return
    const withValue = op === 0xf1 || op === 0xf2
    const [, to, third, fourth, fifth] = pending.args
    const value = withValue ? third! : op === 0xf4 ? runState.env.callValue : 0n
    const [inOffset, inLength] = withValue ? [fourth!, fifth!] : [third!, fourth!]
    const input = inLength === 0n ? EMPTY : runState.memory.read(Number(inOffset), Number(inLength))
    const depth = frame.depth + 1
    // geth evm.Call: ErrDepth past 1024 frames, else ErrInsufficientBalance
    const error = frame.depth >= STACK_LIMIT ? 'max call depth exceeded' : 'insufficient balance for transfer'
    const gas = pending.gas + (withValue && value > 0n ? CALL_STIPEND : 0n)
    const from = frameAddress(runState).bytes
    await tracer.onEnter?.({ type: frameTypeOf(op)!, depth, from, to: wordToAddress(to!), input, gas, value }, this.reader)
    await tracer.onExit?.({ depth, output: EMPTY, gasUsed: 0n, error, reverted: false }, this.reader)
  }

  onLog([address, topics, data]: [Uint8Array, Uint8Array[], Uint8Array]): void {
    this.tracer!.onLog?.({ depth: this.frames.at(-1)?.depth ?? 0, address, topics, data })
  }

  /** geth opSelfdestruct: OnEnter(SELFDESTRUCT, contract → beneficiary, balance) and OnExit, one level down. */
  async onSelfdestruct(contract: Uint8Array, beneficiary: Uint8Array, balance: bigint): Promise<void> {
    const tracer = this.tracer!
    const depth = (this.frames.at(-1)?.depth ?? 0) + 1
    await tracer.onEnter?.(
      { type: 'SELFDESTRUCT', depth, from: contract, to: beneficiary, input: EMPTY, gas: 0n, value: balance },
      this.reader,
    )
    await tracer.onExit?.({ depth, output: EMPTY, gasUsed: 0n, error: undefined, reverted: false }, this.reader)
  }
}

/**
 * The first `length` bytes of memory without copying; memory a gas charge covers but no write has
 * reached yet is zeros (geth resizes it before the opcode).
 */
function memoryView(store: Uint8Array, length: number): Uint8Array {
  if (store.length >= length) return store.subarray(0, length)
  const out = new Uint8Array(length)
  out.set(store)
  return out
}

/** The gas a CALL-family opcode hands over (geth `callGas`): min(requested, available − available/64). */
function callGas(available: bigint, requested: bigint): bigint {
  if (available <= 0n) return 0n
  const cap = available - available / CALL_GAS_RETAINED_DIVISOR
  return requested < cap ? requested : cap
}

/** The frame type from the message alone (when no opening opcode was seen). */
function fallbackFrameType(message: Message): FrameType {
  if (message.to === undefined) return message.salt ? 'CREATE2' : 'CREATE'
  if (message.delegatecall) return 'DELEGATECALL'
  return message.isStatic ? 'STATICCALL' : 'CALL'
}
