/**
 * One read-only VM at a committed state root for RPC requests (see `calls.ts`): one request at a time,
 * an EVM deadline that does not slow ordinary opcodes, and tracking of whether a request wrote state.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVM } from '@ethereumjs/evm'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { VM } from '@ethereumjs/vm'
import { equalBytes } from '../../primitives/hex.js'
import { CallTimeoutError } from '../errors.js'
import { getOpcodeTable } from './ethereumjs-patches.js'
import { createExecutionBlock, type BlockEnv } from '../executor.js'

/** The deadline hook reads the clock every this many jumps/calls (a power of 2). */
const CLOCK_EVERY_CHECKS = 16
/**
 * Opcodes the deadline hook wraps: every loop jumps (JUMP, JUMPI), and code without loops can only
 * run long through CALL/CALLCODE/DELEGATECALL/STATICCALL/CREATE/CREATE2.
 */
const DEADLINE_OPCODES = [0x56, 0x57, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa]

/** The state and block a request runs against. */
export interface StateAt {
  height: number
  stateRoot: Uint8Array
  env: BlockEnv
  /** Whether LevelDB has the height (other threads can read it), not only this thread's staged writes. */
  written: boolean
}

/** One read-only VM at a committed state root, used by one request at a time. */
export class StateCopy {
  broken = false
  deadline = Infinity
  timeoutMs = 0
  /** Once the running request is past this time (performance.now()), `onLongRun` is called, once. */
  longRunAt = Infinity
  onLongRun: (() => void) | undefined
  private checks = 0
  private queue: Promise<unknown> = Promise.resolve()
  private blocks = new Map<bigint, Block>()

  /** Whether the running request changed state (then its checkpoint is reverted, else committed). */
  dirty = false

  constructor(
    readonly vm: VM,
    readonly state: StateAt,
    private readonly common: Common,
  ) {
    installDeadline(vm.evm as EVM, () => {
      if ((++this.checks & (CLOCK_EVERY_CHECKS - 1)) !== 0) return
      const now = performance.now()
      if (now > this.deadline) throw new CallTimeoutError(this.timeoutMs)
      if (now > this.longRunAt) {
        this.longRunAt = Infinity
        this.onLongRun?.()
      }
    })
    this.trackWrites()
  }

  /**
   * Sets `dirty` on any state change. The EVM re-puts the caller and callee accounts on every call
   * even when nothing changes; such writes (same account, or an empty account where there was none,
   * which no opcode can tell apart under EIP-161) leave the request clean. A clean request's
   * checkpoint is committed into the copy's held checkpoint, so what it read stays cached.
   */
  private trackWrites(): void {
    const sm = this.sm
    const putAccount = sm.putAccount.bind(sm)
    sm.putAccount = async (address, account) => {
      if (!this.dirty) {
        const current = await sm.getAccount(address)
        const same =
          current === undefined
            ? account === undefined || account.isEmpty()
            : account !== undefined &&
              current.nonce === account.nonce &&
              current.balance === account.balance &&
              equalBytes(current.codeHash, account.codeHash) &&
              equalBytes(current.storageRoot, account.storageRoot)
        if (!same) this.dirty = true
      }
      return putAccount(address, account)
    }
    for (const name of ['deleteAccount', 'putStorage', 'clearStorage', 'putCode'] as const) {
      const original = (sm[name] as (...args: unknown[]) => Promise<void>).bind(sm)
      ;(sm as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        this.dirty = true
        return original(...args)
      }
    }
  }

  get sm(): MerkleStateManager {
    return this.vm.stateManager as MerkleStateManager
  }

  /** Runs `fn` after every earlier request on this copy finished. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }

  /** The block calls run in, with the height's base fee or 0 (geth NoBaseFee for fee-less calls). */
  block(baseFee: bigint): Block {
    let block = this.blocks.get(baseFee)
    if (!block) {
      block = createExecutionBlock({ ...this.state.env, baseFee }, this.common)
      this.blocks.set(baseFee, block)
    }
    return block
  }
}

/**
 * Makes `check` run before every JUMP, JUMPI, CALL-family and CREATE opcode of this EVM instance (its
 * own opcode table entries; the consensus VM is untouched). A thrown non-EVM error aborts the call.
 * This costs nothing on other opcodes, unlike a `step` listener, with which the interpreter builds a
 * step object (stack and memory copies) for every opcode: ~14% of an eth_call here. The opcode table
 * is an ethereumjs 10.1.3 internal (ethereumjs-patches.ts); when it is not found, the documented
 * `step` event is used instead.
 */
function installDeadline(evm: EVM, check: () => void): void {
  const map = getOpcodeTable(evm)
  if (!map || DEADLINE_OPCODES.some((op) => typeof map[op]?.opHandler !== 'function')) {
    evm.events.on('step', check)
    return
  }
  for (const op of DEADLINE_OPCODES) {
    const entry = map[op]!
    const original = entry.opHandler!
    entry.opHandler = (runState, common) => {
      check()
      return original(runState, common)
    }
  }
}
