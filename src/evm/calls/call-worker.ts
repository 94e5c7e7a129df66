/**
 * A call worker's thread (started by call-workers.ts, never imported): it opens the node's database,
 * which the node opened for several threads, and runs eth_call and eth_estimateGas with a CallService
 * of its own (its own state copies and trie-node cache, the same code as on the main thread) at the
 * states the main thread sends. The main thread sends only heights LevelDB already has.
 *
 * When a newer height arrives the worker drops its copies (the main thread drops its own at each
 * commit) and reloads the committed validator set that the validator-admin contract checks against.
 * Its heap has a memory reducer of its own, as the main thread's (utils/memory-reducer.ts).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { Database } from '../../db/database.js'
import { MemoryReducer } from '../../utils/memory-reducer.js'
import { BlockHashes } from '../state/block-hashes.js'
import type { CallAnswer, CallRequest, CallWorkerData, WorkerReady } from './call-worker-protocol.js'
import { ANSWER_BATCH_MAX, keepState, toWireError } from './call-worker-protocol.js'
import { CallService, type StateAt } from './calls.js'
import { getCommon } from '../common.js'
import { MessageBatch } from './message-batch.js'
import { EvmStore } from '../store/evm-store.js'
import { trieNodeCacheOf } from '../state/trie-db.js'
import { readOnlyValidatorAdmin } from '../validators/validator-admin.js'
import { ValidatorRegistry } from '../validators/validator-registry.js'

async function main(): Promise<void> {
  const port = parentPort!
  const data = workerData as CallWorkerData
  const db = new Database({ path: data.dbPath })
  await db.open()
  trieNodeCacheOf(db).resize(data.trieNodeCacheBytes)
  const validators = new ValidatorRegistry(db)
  const answers = new MessageBatch<CallAnswer>(port, ANSWER_BATCH_MAX)
  const service = new CallService(
    {
      db,
      common: getCommon(data.evmChainId, data.devRules),
      blockchain: new BlockHashes(new EvmStore(db)),
      resolve: () => Promise.reject(new Error('a call worker runs at the states it is sent')),
      prepareVm: readOnlyValidatorAdmin(data.validatorAdmin, validators),
      // Answers of earlier calls do not wait for the end of a long one.
      onLongRun: answers.flush,
    },
    data.calls,
  )
  let newest = -1
  let validatorsLoaded: Promise<void> = Promise.resolve()
  const states = new Map<number, StateAt>()

  const answer = async (req: CallRequest): Promise<CallAnswer> => {
    if (req.state) keepState(states, req.height, req.state)
    const state = states.get(req.height)
    if (!state) return { id: req.id, error: toWireError(new Error(`call worker has no state of height ${req.height}`)) }
    if (state.height > newest) {
      newest = state.height
      service.invalidate()
      validatorsLoaded = validators.load()
    }
    try {
      await validatorsLoaded
      const result = req.op === 'call' ? await service.callAt(req.args, state) : await service.estimateGasAt(req.args, state)
      return { id: req.id, result }
    } catch (err) {
      return { id: req.id, error: toWireError(err) }
    }
  }

  const reducer = new MemoryReducer()
  const send = (reply: CallAnswer): void => answers.push(reply)
  port.on('message', (msg: CallRequest[] | 'close') => {
    if (msg === 'close') {
      reducer.stop()
      answers.clear()
      port.close()
      void db.close()
      return
    }
    for (const req of msg) void answer(req).then(send)
  })
  port.postMessage({ ready: true } satisfies WorkerReady)
  reducer.start()
}

main().catch((err: unknown) => {
  // Uncaught, it ends the thread and reaches the main thread as the worker's `error` event.
  process.nextTick(() => {
    throw err
  })
})
