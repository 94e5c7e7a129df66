/**
 * eth_call answers at committed heights, memoised until the next commit. A call against a committed
 * state is a pure function of (height, arguments): the state, block environment, gas cap and EVM are
 * fixed. Dapps poll the same views (balanceOf, allowance, totalSupply) from many clients between two
 * blocks; each answer costs ~0.3 ms of EVM work here, a memoised one a map lookup. Concurrent equal
 * calls share one execution. Only outcomes that arguments alone decide are kept (a result, a revert,
 * a VM error); a timeout or an internal failure is forgotten, so the next caller runs it again.
 */
import { ExecutionRevertedError, VmExecutionError } from '../errors.js'
import type { CallArgs } from './call-args.js'

/** Distinct calls remembered between two commits (the oldest are forgotten first). */
export const CALL_CACHE_SIZE = 4_096

function hex(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '' : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

function num(value: bigint | undefined): string {
  return value === undefined ? '' : value.toString(16)
}

/** A string naming the height and every argument that can change a call's outcome. */
export function callKey(height: number, args: CallArgs): string {
  let key = `${height}|${hex(args.from)}|${hex(args.to)}|${num(args.gas)}|${num(args.gasPrice)}|${num(args.maxFeePerGas)}|${num(args.maxPriorityFeePerGas)}|${num(args.value)}|${num(args.nonce)}|${hex(args.input)}`
  if (args.accessList) for (const item of args.accessList) key += `|${hex(item.address)}:${item.storageKeys.map(hex).join(',')}`
  return key
}

export class CallResultCache<T> {
  private entries = new Map<string, Promise<T>>()

  constructor(private readonly size = CALL_CACHE_SIZE) {}

  /** The remembered outcome of `key`, else `run()`'s (remembered when it is decided by the arguments). */
  get(key: string, run: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key)
    if (hit !== undefined) return hit
    const pending = run()
    this.entries.set(key, pending)
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!)
    const entries = this.entries
    pending.catch((err: unknown) => {
      const decided = err instanceof ExecutionRevertedError || err instanceof VmExecutionError
      if (!decided && entries.get(key) === pending) entries.delete(key)
    })
    return pending
  }

  /** Forgets everything (a block committed). */
  clear(): void {
    this.entries = new Map()
  }
}
