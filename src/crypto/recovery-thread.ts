/**
 * Sender recovery off the main thread. Admitting a transaction costs about 70 µs of native
 * libsecp256k1 recovery, the largest single item of a committed transfer's main-thread time
 * (`node --cpu-prof`, transfers workload); one worker thread does it instead, for the recoveries
 * asked within one turn of the event loop in one message each way.
 *
 * The worker runs the same binding `recoverPublicKey` uses (evm/txs/tx.ts decodeRawTxOffThread
 * hands its key to the transaction). Without the native binding (or with NODECTL_PURE_JS_CRYPTO=1)
 * there is no thread and recovery stays synchronous.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { secp256k1Backend } from './secp256k1.js'

/** Bytes of one job: hash (32), r ‖ s (64), recovery id (1). */
const JOB = 97
/** Bytes of one answer: the 65-byte public key, or zeros when the signature does not recover. */
const KEY = 65

/** The thread: recovers a batch of jobs with the binding at `workerData`, answers with their keys. */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const secp = require(workerData)
parentPort.on('message', (jobs) => {
  const n = jobs.length / ${JOB}
  const keys = new Uint8Array(n * ${KEY})
  for (let i = 0; i < n; i++) {
    const at = i * ${JOB}
    try {
      keys.set(secp.ecdsaRecover(jobs.subarray(at + 32, at + 96), jobs[at + 96], jobs.subarray(at, at + 32), false), i * ${KEY})
    } catch {}
  }
  parentPort.postMessage(keys, [keys.buffer])
})
`

interface Job {
  hash: Uint8Array
  signature: Uint8Array
  recovery: number
  resolve: (key: Uint8Array | undefined) => void
}

/** Jobs left to the main thread's own recovery. */
function resolveUnrecovered(jobs: readonly Job[]): void {
  for (const job of jobs) job.resolve(undefined)
}

/** One worker thread and the batches sent to it, answered in order. */
class RecoveryThread {
  private readonly worker: Worker
  private queued: Job[] = []
  private readonly sent: Job[][] = []
  private failed = false

  constructor(binding: string) {
    this.worker = new Worker(THREAD_SOURCE, { eval: true, workerData: binding })
    this.worker.unref()
    this.worker.on('message', (keys: Uint8Array) => this.answer(keys))
    // A thread that fails leaves recovery to the main thread: every waiting job gets no key.
    this.worker.on('error', () => this.fail())
    this.worker.on('exit', () => this.fail())
  }

  recover(hash: Uint8Array, signature: Uint8Array, recovery: number): Promise<Uint8Array | undefined> {
    if (this.failed) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      if (this.queued.length === 0) setImmediate(() => this.send())
      this.queued.push({ hash, signature, recovery, resolve })
    })
  }

  private send(): void {
    const batch = this.queued
    this.queued = []
    if (this.failed) return resolveUnrecovered(batch)
    const jobs = new Uint8Array(batch.length * JOB)
    batch.forEach((job, i) => {
      jobs.set(job.hash, i * JOB)
      jobs.set(job.signature, i * JOB + 32)
      jobs[i * JOB + 96] = job.recovery
    })
    // Referenced while it owes answers, so a process waiting only on them does not exit.
    if (this.sent.length === 0) this.worker.ref()
    this.sent.push(batch)
    this.worker.postMessage(jobs, [jobs.buffer])
  }

  private answer(keys: Uint8Array): void {
    const batch = this.sent.shift()
    if (this.sent.length === 0) this.worker.unref()
    batch?.forEach((job, i) => {
      const key = keys.subarray(i * KEY, (i + 1) * KEY)
      job.resolve(key[0] === 4 ? key : undefined)
    })
  }

  private fail(): void {
    this.failed = true
    for (const batch of this.sent.splice(0)) resolveUnrecovered(batch)
  }
}

/** The thread, started with the first recovery (null: none, recovery stays synchronous). */
let thread: RecoveryThread | null | undefined

function recoveryThread(): RecoveryThread | null {
  if (thread !== undefined) return thread
  thread = null
  if (secp256k1Backend() === 'native') {
    try {
      thread = new RecoveryThread(createRequire(import.meta.url).resolve('secp256k1'))
    } catch {
      // no worker threads here: recovery stays on the main thread
    }
  }
  return thread
}

/**
 * The 65-byte public key of a 32-byte hash's signature (r ‖ s, 64 bytes) recovered on the worker
 * thread; undefined when it does not recover there or there is no thread.
 */
export function recoverOffThread(hash: Uint8Array, signature: Uint8Array, recovery: number): Promise<Uint8Array | undefined> {
  return recoveryThread()?.recover(hash, signature, recovery) ?? Promise.resolve(undefined)
}
