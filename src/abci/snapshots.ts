/**
 * State-sync snapshots, the four requests of CometBFT's snapshot connection. The node does not serve or
 * restore snapshots yet: `noSnapshots` answers as an application without any, so a node under CometBFT
 * always syncs by replaying blocks. A provider of real snapshots plugs in here.
 */
import {
  type ApplySnapshotChunkRequest,
  ApplySnapshotChunkResult,
  type LoadSnapshotChunkRequest,
  type OfferSnapshotRequest,
  OfferSnapshotResult,
  type ResponsePayloads,
  type Snapshot,
} from './wire/messages.js'

export interface SnapshotProvider {
  listSnapshots(): Promise<Snapshot[]>
  offerSnapshot(req: OfferSnapshotRequest): Promise<OfferSnapshotResult>
  loadSnapshotChunk(req: LoadSnapshotChunkRequest): Promise<Uint8Array>
  applySnapshotChunk(req: ApplySnapshotChunkRequest): Promise<ResponsePayloads['applySnapshotChunk']>
}

/** No snapshots to give; every offered one is refused, and a chunk (never expected) aborts the sync. */
export const noSnapshots: SnapshotProvider = {
  listSnapshots: async () => [],
  offerSnapshot: async () => OfferSnapshotResult.Reject,
  loadSnapshotChunk: async () => new Uint8Array(),
  applySnapshotChunk: async () => ({ result: ApplySnapshotChunkResult.Abort, refetchChunks: [], rejectSenders: [] }),
}
