/**
 * The host functions behind the sandbox's tracer API (prelude.ts calls them through its `host`
 * object): the current step's stack, memory and contract, state reads, and the address helpers.
 * Each call crosses into the host (~10 µs), so the prelude asks only when the program does.
 */
import type { QuickJSAsyncContext, QuickJSHandle } from 'quickjs-emscripten'
import { generateAddress, generateAddress2 } from '@ethereumjs/util'
import { bigintToBytes, bytesToHex, hexToBytes } from '../../../primitives/hex.js'
import type { OpcodeStep, TraceStateReader } from '../hooks.js'
import { isPrecompiled } from '../native/precompiles.js'

/** geth `internal.GetMemoryCopyPadded`: a slice may reach at most 1 MiB past the end of memory. */
const MEMORY_PAD_LIMIT = 1024 * 1024

/** What the host functions read: the step being traced and the state at that instant. */
export interface HostView {
  step: OpcodeStep | undefined
  state: TraceStateReader | undefined
}

/** A copy of `bytes` as an exact ArrayBuffer (what `newArrayBuffer` takes). */
function bufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer as ArrayBuffer
}

function currentStep(view: HostView): OpcodeStep {
  if (!view.step) throw new Error('no opcode is being traced')
  return view.step
}

function currentState(view: HostView): TraceStateReader {
  if (!view.state) throw new Error('no state is available yet')
  return view.state
}

/** geth `memoryObj.slice`: zero-padded past the end, errors for a reversed or far-out range. */
function sliceMemory(memory: Uint8Array, begin: number, end: number): Uint8Array {
  if (end === begin) return new Uint8Array(0)
  if (end < begin || begin < 0) throw new RangeError(`tracer accessed out of bound memory: offset ${begin}, end ${end}`)
  if (end - memory.length > MEMORY_PAD_LIMIT) {
    throw new RangeError(`tracer reached limit for padding memory slice: end ${end}, memorySize ${memory.length}`)
  }
  const out = new Uint8Array(end - begin)
  if (begin < memory.length) out.set(memory.subarray(begin, Math.min(end, memory.length)))
  return out
}

/** Builds the `host` object the prelude receives; the caller owns (and disposes) the handle. */
export function createHostObject(context: QuickJSAsyncContext, view: HostView): QuickJSHandle {
  const host = context.newObject()
  const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined): void => {
    const handle = context.newFunction(name, fn)
    context.setProp(host, name, handle)
    handle.dispose()
  }
  const defineAsync = (name: string, fn: (...args: QuickJSHandle[]) => Promise<QuickJSHandle>): void => {
    const handle = context.newAsyncifiedFunction(name, fn)
    context.setProp(host, name, handle)
    handle.dispose()
  }
  const num = (h: QuickJSHandle | undefined): number => (h === undefined ? 0 : context.getNumber(h))
  const str = (h: QuickJSHandle | undefined): string => (h === undefined ? '' : context.getString(h))
  const bytes = (b: Uint8Array): QuickJSHandle => context.newArrayBuffer(bufferOf(b))
  const bool = (b: boolean): QuickJSHandle => (b ? context.true : context.false)

  define('opName', () => context.newString(currentStep(view).opName))
  // The top `n` stack words, top first, as comma-separated hex.
  define('stackTop', (n) => {
    const stack = currentStep(view).stack
    const count = Math.min(num(n), stack.length)
    const words: string[] = []
    for (let i = 0; i < count; i++) words.push(stack[stack.length - 1 - i]!.toString(16))
    return context.newString(words.join(','))
  })
  define('memorySlice', (begin, end) => bytes(sliceMemory(currentStep(view).memory, num(begin), num(end))))
  define('memoryGetUint', (offset) => {
    const memory = currentStep(view).memory
    const at = num(offset)
    if (at < 0 || memory.length < at + 32) {
      throw new RangeError(`tracer accessed out of bound memory: available ${memory.length}, offset ${at}, size 32`)
    }
    return context.newString(bytesToHex(memory.subarray(at, at + 32)).slice(2))
  })
  define('contract', (kind) => {
    const step = currentStep(view)
    switch (str(kind)) {
      case 'caller':
        return bytes(step.caller)
      case 'address':
        return bytes(step.contract)
      case 'value':
        return context.newString(step.callValue.toString())
      default:
        return bytes(step.input)
    }
  })
  define('toContract', (from, nonce) => bytes(generateAddress(hexToBytes(str(from)), bigintToBytes(BigInt(num(nonce))))))
  define('toContract2', (from, salt, initcode) =>
    bytes(generateAddress2(hexToBytes(str(from)), hexToBytes(str(salt)), hexToBytes(str(initcode)))),
  )
  define('isPrecompiled', (address) => bool(isPrecompiled(hexToBytes(str(address)))))

  defineAsync('dbBalance', async (a) => context.newString((await currentState(view).getBalance(hexToBytes(str(a)))).toString()))
  defineAsync('dbNonce', async (a) => context.newNumber(Number(await currentState(view).getNonce(hexToBytes(str(a))))))
  defineAsync('dbCode', async (a) => bytes(await currentState(view).getCode(hexToBytes(str(a)))))
  defineAsync('dbState', async (a, slot) => bytes(await currentState(view).getStorage(hexToBytes(str(a)), hexToBytes(str(slot)))))
  defineAsync('dbExists', async (a) => bool(await currentState(view).exists(hexToBytes(str(a)))))
  return host
}
