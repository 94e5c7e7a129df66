/**
 * eth_call and eth_estimateGas on worker threads (`[json-rpc] call-workers`): the main thread keeps
 * HTTP, JSON, the pool and consensus, and hands each call at a height LevelDB has to the least busy
 * worker (call-worker.ts), which executes it with its own copies of that state. Under load the main
 * thread was busy end to end, about half of it in the EVM; with a worker the two halves run on two
 * cores.
 *
 * Workers start once more than START_CALLS calls come within START_WINDOW_MS (those calls, like every
 * call while no worker is ready, run on the main thread), so a node called now and then starts none, and
 * they stop after IDLE_STOP_MS without a call: a worker holds its own heap, state copies and
 * trie-node cache (about 70 MB after a burst of calls here), which only a thread's end gives back.
 * A worker that dies is started again by the next fast calls, its requests in flight failing with an
 * internal error; one that dies before it is ready turns the workers off for the life of the node
 * (logged), so calls keep running on the main thread.
 */
import { existsSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { TypedEmitter } from '../../utils/events.js'
import type { Logger } from '../../utils/logger.js'
import type { CallArgs } from './call-args.js'
import {
  fromWireError,
  keepState,
  type CallAnswer,
  type CallOp,
  type CallRequest,
  type CallWorkerData,
  type WorkerReady,
} from './call-worker-protocol.js'
import type { CallResult, RemoteCalls } from './calls.js'
import type { StateAt } from '../state/state-copy.js'

/** The worker's script next to this module: in the start bundle (a .cjs file), the workers' own bundle. */
const WORKER_SCRIPT = import.meta.url.endsWith('.cjs') ? './call-worker.cjs' : './call-worker.js'
/**
 * A worker stops after this long without a call (fast calls start it again): long enough to span the
 * gaps of a steady load, short enough that an idle worker's heap and trie-node ring (50–60 MB after the
 * benchmark's calls) are given back before the next burst of other work. With 10 s the worker was
 * still idle through the benchmark's transfers, which follow its calls, and made their peak RSS.
 */
export const IDLE_STOP_MS = 3_000
/**
 * Workers start once more than this many calls and estimates come within START_WINDOW_MS: a steady
 * load, not a burst (a dapp's page load, a poller's twenty views a second), for which the main thread
 * has time and a worker would only cost its memory.
 */
const START_CALLS = 100
const START_WINDOW_MS = 1_000
/** How long a stopping worker may take to close its database before it is terminated. */
const CLOSE_TIMEOUT_MS = 2_000

/** The compiled worker script, or undefined when running from the TypeScript sources. */
export function defaultCallWorkerScript(): URL | undefined {
  const url = new URL(WORKER_SCRIPT, import.meta.url)
  return existsSync(url) ? url : undefined
}

export interface CallWorkersOptions {
  /** Worker threads (at least 1). */
  count: number
  /** The worker's script; default {@link defaultCallWorkerScript}. */
  script?: URL
  /** Default IDLE_STOP_MS. */
  idleStopMs?: number
  data: CallWorkerData
  logger: Logger
}

interface Waiter {
  resolve(value: unknown): void
  reject(err: Error): void
}

interface Slot {
  worker: Worker
  ready: boolean
  pending: Map<number, Waiter>
  /** The heights whose state the worker holds (call-worker-protocol.ts `keepState`). */
  states: Map<number, true>
  /** Stops the worker IDLE_STOP_MS after it was ready or last answered with nothing left in flight. */
  idle: NodeJS.Timeout | undefined
}

export class CallWorkers implements RemoteCalls {
  private readonly slots: (Slot | undefined)[]
  private nextId = 1
  /** No script, or a worker could not start: every call runs on the main thread. */
  private off = false
  private closed = false
  /** A worker became ready; a worker's thread ended (idle, stopped, or died). */
  readonly events = new TypedEmitter<{ ready: { worker: number }; exit: { worker: number; code: number } }>()
  /** Calls and estimates handed to the workers so far. */
  sent = 0
  /** Calls and estimates offered in the window that began at `windowStart` (performance.now()). */
  private windowCalls = 0
  private windowStart = 0

  constructor(private readonly opts: CallWorkersOptions) {
    this.slots = new Array<Slot | undefined>(opts.count).fill(undefined)
  }

  call(args: CallArgs, state: StateAt): Promise<CallResult> | undefined {
    return this.send('call', args, state) as Promise<CallResult> | undefined
  }

  estimateGas(args: CallArgs, state: StateAt): Promise<bigint> | undefined {
    return this.send('estimateGas', args, state) as Promise<bigint> | undefined
  }

  /**
   * Resolves once a worker can take calls, starting the workers when none runs; false when they
   * cannot run (no script, or one failed to start).
   */
  whenReady(): Promise<boolean> {
    this.pick(true)
    if (this.slots.some((slot) => slot?.ready)) return Promise.resolve(true)
    if (this.off || this.closed) return Promise.resolve(false)
    return new Promise((resolve) => {
      const offReady = this.events.on('ready', () => settle(true))
      const offExit = this.events.on('exit', () => this.off && settle(false))
      const settle = (ready: boolean): void => {
        offReady()
        offExit()
        resolve(ready)
      }
    })
  }

  /** Stops every worker (each closes its database first). */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all(this.slots.map((slot) => slot && stopWorker(slot.worker)))
  }

  private send(op: CallOp, args: CallArgs, state: StateAt): Promise<unknown> | undefined {
    const slot = this.pick(this.comingFast())
    if (!slot) return undefined
    const id = this.nextId++
    this.sent++
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject })
      const first = keepState(slot.states, state.height, true)
      // At once, not at the end of the turn: the main thread's turn may go on with a block's execution.
      slot.worker.postMessage([{ id, op, args, height: state.height, state: first ? state : undefined }] satisfies CallRequest[])
    })
  }

  /** Counts an offered call; true once more than START_CALLS came in the current window. */
  private comingFast(): boolean {
    const now = performance.now()
    if (now - this.windowStart > START_WINDOW_MS) {
      this.windowStart = now
      this.windowCalls = 0
    }
    return ++this.windowCalls > START_CALLS
  }

  /** The ready worker with the fewest requests in flight; `start`: start the missing ones. */
  private pick(start: boolean): Slot | undefined {
    if (this.off || this.closed) return undefined
    let best: Slot | undefined
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i] ?? (start ? this.start(i) : undefined)
      if (slot?.ready && (best === undefined || slot.pending.size < best.pending.size)) best = slot
    }
    return best
  }

  private start(i: number): Slot | undefined {
    const script = this.opts.script ?? defaultCallWorkerScript()
    if (!script) {
      this.off = true
      return undefined
    }
    const log = this.opts.logger
    const worker = new Worker(script, { workerData: this.opts.data })
    // The HTTP server keeps the node alive; a worker alone must not.
    worker.unref()
    const slot: Slot = { worker, ready: false, pending: new Map(), states: new Map(), idle: undefined }
    const stopIfIdle = (): void => {
      if (slot.pending.size > 0 || this.slots[i] !== slot) return
      this.slots[i] = undefined
      log.debug('call worker idle, stopping', { worker: i })
      void stopWorker(worker)
    }
    this.slots[i] = slot
    worker.on('message', (msg: CallAnswer[] | WorkerReady) => {
      if (!Array.isArray(msg)) {
        slot.ready = true
        slot.idle = setTimeout(stopIfIdle, this.opts.idleStopMs ?? IDLE_STOP_MS).unref()
        log.debug('call worker ready', { worker: i })
        this.events.emit('ready', { worker: i })
        return
      }
      for (const answer of msg) {
        const waiter = slot.pending.get(answer.id)
        if (!waiter) continue
        slot.pending.delete(answer.id)
        if ('error' in answer) waiter.reject(fromWireError(answer.error))
        else waiter.resolve(answer.result)
      }
      if (slot.pending.size === 0) slot.idle?.refresh()
    })
    worker.on('error', (err) => log.error('call worker failed', { worker: i, err }))
    worker.on('exit', (code) => {
      clearTimeout(slot.idle)
      if (this.slots[i] === slot) this.slots[i] = undefined
      for (const waiter of slot.pending.values()) waiter.reject(new Error(`call worker exited (code ${code})`))
      slot.pending.clear()
      if (!slot.ready && !this.closed) {
        this.off = true
        log.error('call worker did not start; eth_call and eth_estimateGas run on the main thread', { worker: i, code })
      }
      this.events.emit('exit', { worker: i, code })
    })
    return slot
  }
}

async function stopWorker(worker: Worker): Promise<void> {
  if (worker.threadId < 0) return // already exited
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  worker.postMessage('close')
  const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS)
  await exited
  clearTimeout(timer)
}
