/**
 * One ABCI request to its answer: the application's method for the requests it defines, fixed answers for
 * what the node does not use (vote extensions) and the snapshot provider for state sync. Echo and Flush
 * need nothing from the application.
 */
import type { Application } from './application.js'
import type { SnapshotProvider } from './snapshots.js'
import { type AbciRequest, type AbciResponse, VerdictStatus } from './wire/messages.js'

/** The answer to `req`; rejects when the application throws. */
export async function answerRequest(app: Application, snapshots: SnapshotProvider, req: AbciRequest): Promise<AbciResponse> {
  switch (req.method) {
    case 'echo':
      return { method: 'echo', value: { message: req.value.message } }
    case 'flush':
      return { method: 'flush', value: {} }
    case 'info':
      return { method: 'info', value: await app.info() }
    case 'initChain':
      return { method: 'initChain', value: await app.initChain(req.value) }
    case 'query':
      return { method: 'query', value: await app.query(req.value) }
    case 'checkTx':
      return { method: 'checkTx', value: await app.checkTx(req.value.tx, req.value.type) }
    case 'prepareProposal':
      return { method: 'prepareProposal', value: await app.prepareProposal(req.value) }
    case 'processProposal': {
      const { accept } = await app.processProposal(req.value)
      return { method: 'processProposal', value: { status: accept ? VerdictStatus.Accept : VerdictStatus.Reject } }
    }
    // Vote extensions stay disabled (consensus params `abci.vote_extensions_enable_height` 0): CometBFT
    // does not send these, and an empty extension that every validator accepts is the neutral answer.
    case 'extendVote':
      return { method: 'extendVote', value: { voteExtension: new Uint8Array() } }
    case 'verifyVoteExtension':
      return { method: 'verifyVoteExtension', value: { status: VerdictStatus.Accept } }
    case 'finalizeBlock':
      return { method: 'finalizeBlock', value: await app.finalizeBlock(req.value) }
    case 'commit':
      return { method: 'commit', value: await app.commit() }
    case 'listSnapshots':
      return { method: 'listSnapshots', value: { snapshots: await snapshots.listSnapshots() } }
    case 'offerSnapshot':
      return { method: 'offerSnapshot', value: { result: await snapshots.offerSnapshot(req.value) } }
    case 'loadSnapshotChunk':
      return { method: 'loadSnapshotChunk', value: { chunk: await snapshots.loadSnapshotChunk(req.value) } }
    case 'applySnapshotChunk':
      return { method: 'applySnapshotChunk', value: await snapshots.applySnapshotChunk(req.value) }
  }
}
