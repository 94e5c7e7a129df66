/** What the snapshot methods need from the node (docs/dev-chain.md, "Snapshots"). */
export interface SnapshotBackend {
  /** Records the chain as it is; returns the snapshot's id (increasing, never reused). */
  snapshot(): Promise<bigint>
  /**
   * Back to the chain of snapshot `id`; that snapshot and every later one are gone. False for an
   * unknown (or already used) id, and nothing changes.
   */
  revert(id: bigint): Promise<boolean>
  /** Back to the genesis of the chain: every block gone, the pool emptied, every snapshot gone. */
  reset(): Promise<void>
}
