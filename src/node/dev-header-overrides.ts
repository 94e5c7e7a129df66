/**
 * The header values of the next block a dev chain makes (docs/dev-chain.md, "Time"): what mining needs
 * of them. The application keeps the overrides; each one rides in the next block as a dev operation.
 */
export interface DevHeaderOverrides {
  /** The EVM timestamp (seconds) of the next block, however it is made. */
  setNextTimestamp(ts: bigint): void
}
