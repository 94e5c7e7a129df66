/**
 * What the dev methods that change state and the next block's header need from the node
 * (src/node/dev-state.ts implements it over the application's dev-operation queue).
 */

/** The next block's timestamp, as mining methods (evm_mine with a timestamp, anvil_mine's interval) set it. */
export interface DevHeaderOverrides {
  /** The exact EVM timestamp of the next block (s); later blocks continue from it. Throws when not after the latest block's. */
  setNextTimestamp(timestamp: bigint): void
}

/** Whether a set nonce may go below the account's: Anvil lets it, Hardhat refuses. */
export type NonceRule = 'any' | 'notLower'

/** Sets: each resolves once the block carrying it is committed, so a following read at `latest` sees it. */
export interface DevStateBackend {
  setBalance(address: Uint8Array, wei: bigint): Promise<void>
  setCode(address: Uint8Array, code: Uint8Array): Promise<void>
  /**
   * `rule`: `any` sets whatever nonce (Anvil); `notLower` throws NodeError (Hardhat's words) when `nonce` is
   * below the account's latest nonce.
   */
  setNonce(address: Uint8Array, nonce: bigint, rule: NonceRule): Promise<void>
  /** `slot` and `value` are 32-byte words. */
  setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void>
  /** Every account of the latest state as a blob (anvil_dumpState). */
  dumpState(): Promise<Uint8Array>
  /** Merges a dump's accounts into the state (a block of sets); throws NodeError for a blob that is not one. */
  loadState(blob: Uint8Array): Promise<void>
}

/** Header overrides: queued for the next block, however it is made; they answer at once. */
export interface DevHeaderBackend extends DevHeaderOverrides {
  /** Moves the clock forward; returns the total offset from consensus time (s) the next block will have. */
  increaseTime(seconds: bigint): bigint
  /** Sets the clock; returns the total offset from consensus time (s) the next block will have. */
  setTime(timestamp: bigint): bigint
  setNextBaseFee(wei: bigint): void
  /** The coinbase of the next block and every later one. */
  setCoinbase(address: Uint8Array): void
  /** PREVRANDAO (mixHash) of the next block. */
  setPrevRandao(value: Uint8Array): void
  /** The gas limit of the next block and every later one. */
  setBlockGasLimit(gas: bigint): void
}
