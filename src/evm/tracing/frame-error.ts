/**
 * geth's error text of a failed call frame (core/vm/errors.go), from the ethereumjs EVMError and the
 * frame's final interpreter state: `invalid opcode: INVALID` / `invalid opcode: opcode 0xc not
 * defined` (ErrInvalidOpCode names the byte), `stack underflow (0 <=> 2)` and `stack limit reached 1024
 * (1023)` (the stack errors carry the sizes); every other text is vm-errors.ts's mapping.
 */
import { gethVmError } from '../vm-errors.js'
import { gethOpName, stackErrorText } from './opcodes.js'

/** The parts of ethereumjs' final RunState of a frame (`execResult.runState`) that name the failing opcode. */
export interface FinalRunState {
  programCounter?: number
  opCode?: number
  code?: Uint8Array
  stack?: { length: number }
}

/** geth's text for the frame error `ethereumjsError`, refined with the frame's final state when there is one. */
export function gethFrameError(ethereumjsError: string, runState: FinalRunState | undefined): string {
  if (runState) {
    if (ethereumjsError === 'invalid opcode') {
      // ethereumjs fails an invalid opcode before advancing the program counter
      const pc = runState.programCounter
      const op = pc !== undefined && runState.code && pc < runState.code.length ? runState.code[pc]! : runState.opCode
      if (op !== undefined) return `invalid opcode: ${gethOpName(op)}`
    }
    if (
      (ethereumjsError === 'stack underflow' || ethereumjsError === 'stack overflow') &&
      runState.opCode !== undefined &&
      runState.stack
    ) {
      const text = stackErrorText(runState.opCode, runState.stack.length)
      if (text !== undefined) return text
    }
  }
  return gethVmError(ethereumjsError)
}

/**
 * Errors that end a frame outside the interpreter loop (code deposit, address collision, init-code
 * size): geth's interpreter raises no OnFault for them.
 */
const NOT_INTERPRETER_ERRORS: ReadonlySet<string> = new Set([
  'code store out of gas',
  'code size to deposit exceeds maximum code size',
  'invalid bytecode deployed',
  'create collision',
  'initcode exceeds max initcode size',
])

/** Whether geth would report this ethereumjs error through OnFault (it came from an opcode). */
export function isOpcodeFault(ethereumjsError: string): boolean {
  return !NOT_INTERPRETER_ERRORS.has(ethereumjsError)
}
