/**
 * Hooks on opcodes of one EVM instance (a per-request state copy; never the consensus VM), for what the
 * ethereumjs events do not tell: which opcode opened a frame (CALLCODE and a CALL inside a static frame
 * both arrive as plain messages), the return data of the last call, the logs as they are emitted, the
 * SELFDESTRUCT pseudo-frame geth reports, calls that fail before a frame starts (depth, balance), and
 * on every loop (JUMP/JUMPI) a clock check and a chance to yield the event loop even when no `step`
 * listener is attached (the copy's jump entries are marked async so the interpreter awaits them). The opcode table is
 * an ethereumjs 10.1.3 internal (pinned; state-copy.ts wraps it the same way); each EVM has its own
 * table, so other VMs are untouched.
 */
import type { EVM } from '@ethereumjs/evm'
import type { Address } from '@ethereumjs/util'
import { bigintToBytes } from '../../primitives/hex.js'
import { getOpcodeTable, type OpcodeTableEntry } from '../state/ethereumjs-patches.js'
import { frameAddress, lastLog, type RunState, type RunStateLog } from '../state/ethereumjs-run-state.js'
import { CALL_OPCODES, CREATE_OPCODES, JUMP_OPCODES, LOG_OPCODES, SELFDESTRUCT_OPCODE } from './opcodes.js'

/** What the probes report to (the hooks adapter). Nothing is called while `active` is false. */
export interface OpcodeProbe {
  readonly active: boolean
  /** A jump or a call: time to look at the clock. */
  tick(): void
  /** Called on every jump, traced or not: a promise when the event loop should get a turn. */
  pause(): Promise<void> | undefined
  /** A call or create opcode is about to run (before its frame is entered); returns what `after` needs. */
  beforeFrameOpcode(op: number, runState: RunState): unknown
  /** The call or create opcode finished (its frame, if any, has exited); `token` is what `before` returned. */
  afterFrameOpcode(op: number, runState: RunState, token: unknown): Promise<void> | void
  /** A LOGn opcode appended `log` to the frame's logs. */
  onLog(log: RunStateLog): void
  /** SELFDESTRUCT to `beneficiary` moved `balance` (called after the opcode succeeded). */
  onSelfdestruct(contract: Uint8Array, beneficiary: Uint8Array, balance: bigint): Promise<void> | void
}

/** What the per-opcode hooks report to (installOpcodeHooks). */
export interface OpcodeStepProbe {
  /** Whether opcodes are being traced now. */
  readonly stepping: boolean
  /**
   * An opcode is about to run: its gas is computed (`cost`), not yet deducted (`gasLeft`); memory is
   * as before the opcode (`memoryWords` paid for). Also called when computing the gas failed.
   */
  onOpcode(runState: RunState, cost: bigint, gasLeft: bigint, memoryWords: bigint): Promise<void> | void
}

type OpcodeEntry = OpcodeTableEntry<RunState>
type OpHandler = NonNullable<OpcodeEntry['opHandler']>

/** The EVM's own opcode table (an ethereumjs internal: ethereumjs-patches.ts). */
function tableOf(evm: EVM): (OpcodeEntry | undefined)[] | undefined {
  return getOpcodeTable<RunState>(evm)
}

/** ethereumjs' own test for its errors (`EVMError`), which end a frame rather than the call. */
function isEvmError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { errorType?: unknown }).errorType === 'EVMError'
}

/**
 * Calls `probe.onOpcode` before every opcode of `evm`, from the gas step of the interpreter (every
 * entry is marked as having dynamic gas, so the interpreter awaits our gas handler, which runs the
 * opcode's own gas handler first). This is where ethereumjs emits its `step` event, but without the
 * event's copies: the `step` payload copies the whole memory on every opcode, which makes a loop
 * that grows memory quadratic (measured here: 255,000 opcodes of a hashing loop took 15.6 s with an
 * empty `step` listener, 0.46 s without). Returns false when the opcode table is not found.
 */
export function installOpcodeHooks(evm: EVM, probe: OpcodeStepProbe): boolean {
  const table = tableOf(evm)
  if (!table) return false
  for (const entry of new Set(table)) {
    if (!entry) continue
    const original = entry.gasHandler
    entry.gasHandler = async (runState, gas, common) => {
      if (!probe.stepping) return original ? original(runState, gas, common) : gas
      const gasLeft = runState.gasLeft
      const memoryWords = runState.memoryWordCount
      let cost = gas
      if (original) {
        try {
          cost = await original(runState, gas, common)
        } catch (err) {
          // as ethereumjs: the opcode whose gas cannot be paid is still reported, with its base cost
          if (isEvmError(err)) await probe.onOpcode(runState, gas, gasLeft, memoryWords)
          throw err
        }
      }
      await probe.onOpcode(runState, cost, gasLeft, memoryWords)
      return cost
    }
    // Opcode infos are frozen: the entry gets a copy (only this EVM's table holds the entry).
    entry.opcodeInfo = Object.freeze({ ...entry.opcodeInfo, dynamicGas: true })
  }
  return true
}

const ADDRESS_MASK = (1n << 160n) - 1n

/** The 20-byte address of a stack word. */
export function wordToAddress(word: bigint): Uint8Array {
  return bigintToBytes(word & ADDRESS_MASK, 20)
}

/** Installs the probes on `evm`; returns false (and installs nothing) when the opcode table is not found. */
export function installOpcodeProbes(evm: EVM, probe: OpcodeProbe, balanceOf: (address: Address) => Promise<bigint>): boolean {
  const table = tableOf(evm)
  const ops = [...JUMP_OPCODES, ...CALL_OPCODES, ...CREATE_OPCODES, ...LOG_OPCODES, SELFDESTRUCT_OPCODE]
  if (!table || ops.some((op) => typeof table[op]?.opHandler !== 'function')) return false
  const wrap = (op: number, make: (original: OpHandler) => OpHandler): void => {
    const entry = table[op]!
    entry.opHandler = make(entry.opHandler!)
  }
  for (const op of JUMP_OPCODES) {
    wrap(op, (original) => (runState, common) => {
      if (probe.active) probe.tick()
      original(runState, common)
      return probe.pause()
    })
    // Opcode infos are frozen: the entry gets an async copy (only this EVM's table holds the entry).
    table[op]!.opcodeInfo = Object.freeze({ ...table[op]!.opcodeInfo, isAsync: true })
  }
  for (const op of [...CALL_OPCODES, ...CREATE_OPCODES]) {
    wrap(op, (original) => async (runState, common) => {
      if (!probe.active) return original(runState, common)
      probe.tick()
      const token = probe.beforeFrameOpcode(op, runState)
      await original(runState, common)
      await probe.afterFrameOpcode(op, runState, token)
    })
  }
  for (const op of LOG_OPCODES) {
    wrap(op, (original) => (runState, common) => {
      const result = original(runState, common)
      if (probe.active) {
        const log = lastLog(runState)
        if (log) probe.onLog(log)
      }
      return result
    })
  }
  wrap(SELFDESTRUCT_OPCODE, (original) => async (runState, common) => {
    if (!probe.active || runState.stack.length < 1) return original(runState, common)
    const beneficiary = wordToAddress(runState.stack.peek(1)[0]!)
    const contract = frameAddress(runState)
    const balance = await balanceOf(contract)
    try {
      await original(runState, common)
    } catch (err) {
      // ethereumjs ends a successful SELFDESTRUCT by throwing its STOP error
      if ((err as { error?: unknown }).error === 'stop') await probe.onSelfdestruct(contract.bytes, beneficiary, balance)
      throw err
    }
    await probe.onSelfdestruct(contract.bytes, beneficiary, balance)
  })
  return true
}
