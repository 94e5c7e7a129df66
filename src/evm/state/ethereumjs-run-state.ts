/**
 * The interpreter state @ethereumjs/evm 10.1.3 hands to opcode and gas handlers (`RunState`,
 * interpreter.ts: not exported), as the tracing probes read it, and readers of its private members:
 * with ethereumjs-patches.ts, the only code that touches @ethereumjs internals. The versions are
 * pinned in package.json and test/unit/evm/state/ethereumjs-patches.test.ts checks every member named
 * here against the installed package.
 */
import type { Address } from '@ethereumjs/util'

/** A log as the interpreter collects it: address, topics, data. */
export type RunStateLog = [Uint8Array, Uint8Array[], Uint8Array]

/** The parts of the interpreter's RunState the tracing probes read. */
export interface RunState {
  programCounter: number
  /** The code running (init code in a creation frame). */
  code: Uint8Array
  gasLeft: bigint
  gasRefund: bigint
  /** Words of memory paid for so far. */
  memoryWordCount: bigint
  stack: { peek(n: number): bigint[]; length: number }
  memory: { read(offset: number, size: number, avoidCopy?: boolean): Uint8Array }
  messageGasLimit?: bigint
  returnBytes: Uint8Array
  env: { address: Address; codeAddress: Address | undefined; caller: Address; callValue: bigint; callData: Uint8Array; depth: number }
}

/** The private members read below. */
interface RunStateInternals {
  stack: { _store: bigint[]; _len: number }
  memory: { _store: Uint8Array }
  interpreter: { getAddress(): Address; _result: { logs: RunStateLog[] } }
}

const internals = (runState: RunState): RunStateInternals => runState as unknown as RunStateInternals

/** The stack, bottom first, copied (`Stack._store` up to `_len`: `peek` would copy it top first). */
export function readStack(runState: RunState): bigint[] {
  const { stack } = internals(runState)
  return stack._store.slice(0, stack._len)
}

/** The frame's memory buffer (`Memory._store`, without a copy; longer than what is paid for). */
export function memoryBuffer(runState: RunState): Uint8Array {
  return internals(runState).memory._store
}

/** The log the frame emitted last (`Interpreter._result.logs`). */
export function lastLog(runState: RunState): RunStateLog | undefined {
  return internals(runState).interpreter._result.logs.at(-1)
}

/** The address whose storage and balance the frame runs with (`Interpreter.getAddress`). */
export function frameAddress(runState: RunState): Address {
  return internals(runState).interpreter.getAddress()
}
