/** What the dev pool methods need from the node: removal of pooled transactions. */
export interface DevPoolBackend {
  /** Removes the pooled transaction with this (Keccak-256) hash; false when the pool does not hold it. */
  dropTransaction(hash: Uint8Array): boolean
  /** Whether a committed block holds the transaction with this hash. */
  isMined(hash: Uint8Array): Promise<boolean>
  /** Removes every pooled transaction. */
  dropAllTransactions(): void
}
