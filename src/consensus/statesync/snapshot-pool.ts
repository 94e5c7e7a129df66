/**
 * The snapshots peers offer (CometBFT `statesync/snapshots.go`), keyed by height, format and hash, with the
 * peers that have each. The best is the highest, then the newest format, then the most widely held. Snapshots,
 * formats and peers the application refused are never offered again.
 */
import type { Snapshot } from '../../abci/wire/messages.js'
import { bytesToHex } from '../../primitives/hex.js'

function keyOf(s: Snapshot): string {
  return `${s.height}/${s.format}/${bytesToHex(s.hash)}`
}

export class SnapshotPool {
  private readonly snapshots = new Map<string, { snapshot: Snapshot; peers: Set<string> }>()
  private readonly rejected = new Set<string>()
  private readonly rejectedFormats = new Set<number>()
  private readonly rejectedPeers = new Set<string>()

  /** Records that `peer` has `snapshot`; returns true when the snapshot is new. */
  add(snapshot: Snapshot, peer: string): boolean {
    if (this.rejectedPeers.has(peer)) return false
    const key = keyOf(snapshot)
    const entry = this.snapshots.get(key)
    if (entry) {
      entry.peers.add(peer)
      return false
    }
    this.snapshots.set(key, { snapshot, peers: new Set([peer]) })
    return true
  }

  /** The best snapshot not refused, at or above `minHeight`. */
  best(minHeight = 0): Snapshot | undefined {
    let best: { snapshot: Snapshot; peers: number } | undefined
    for (const [key, { snapshot }] of this.snapshots) {
      if (this.rejected.has(key) || this.rejectedFormats.has(snapshot.format) || snapshot.height < BigInt(minHeight)) continue
      const peers = this.peersOf(snapshot).length
      if (peers === 0) continue
      if (!best || compare(snapshot, peers, best.snapshot, best.peers) > 0) best = { snapshot, peers }
    }
    return best?.snapshot
  }

  /** Peers that have `snapshot` and were not refused. */
  peersOf(snapshot: Snapshot): string[] {
    return [...(this.snapshots.get(keyOf(snapshot))?.peers ?? [])].filter((p) => !this.rejectedPeers.has(p))
  }

  reject(snapshot: Snapshot): void {
    this.rejected.add(keyOf(snapshot))
  }

  rejectFormat(format: number): void {
    this.rejectedFormats.add(format)
  }

  rejectPeer(peer: string): void {
    this.rejectedPeers.add(peer)
  }

  /** A peer went away: its snapshots are no longer on offer from it. */
  removePeer(peer: string): void {
    for (const entry of this.snapshots.values()) entry.peers.delete(peer)
  }
}

function compare(a: Snapshot, aPeers: number, b: Snapshot, bPeers: number): number {
  if (a.height !== b.height) return a.height > b.height ? 1 : -1
  if (a.format !== b.format) return a.format - b.format
  return aPeers - bPeers
}
