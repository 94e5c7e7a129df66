/**
 * What the web3/net/eth handlers need from the node, and nothing more (geth `ethapi.Backend`). The node
 * implements it over the real chain, tests give an in-memory double. Everything here is already
 * resolved: heights are numbers (tags and EIP-1898 hashes are resolved by the handlers), and results
 * are the chain's EVM view records (`evm/store/views.ts`), formatted to JSON by `format.ts`.
 *
 * Errors: throw the domain's typed errors (`ExecutionRevertedError`, `TxPoolError`, ...) or a
 * `NodeError` (utils/errors.ts) with geth's message for expected failures; api/evm-errors.ts maps
 * them to the wire. Anything else thrown is reported to the caller as -32603 `internal error` and logged.
 */
import type { ForkConfig } from '../../evm/fork-config.js'
import type { SimulateRequest, SimulatedBlock } from '../../evm/calls/simulate.js'
import type { EvmAccessListItem, EvmAuthorization, EvmBlock, EvmReceipt, EvmTx } from '../../evm/store/views.js'
import type { LogMatches } from '../../evm/store/log-matches.js'
import type { Awaitable } from '../../utils/awaitable.js'

/**
 * Parsed call arguments (geth `TransactionArgs`) for eth_call / eth_estimateGas, validated by
 * `call-args.ts`: `input` is `data`/`input` merged, `gas` is `gas`/`gasLimit` merged; a field the
 * caller did not give is undefined (defaults are the backend's, as in geth's `CallDefaults`).
 */
export interface CallArgs {
  from: Uint8Array | undefined
  /** undefined: contract creation. */
  to: Uint8Array | undefined
  gas: bigint | undefined
  gasPrice: bigint | undefined
  maxFeePerGas: bigint | undefined
  maxPriorityFeePerGas: bigint | undefined
  value: bigint | undefined
  input: Uint8Array | undefined
  nonce: bigint | undefined
  accessList: EvmAccessListItem[] | undefined
  /** EIP-7702 authorizations (a set-code call, on a dev chain). */
  authorizationList?: EvmAuthorization[] | undefined
  chainId: bigint | undefined
}

/** RPC-level limits of a simulated execution (`[json-rpc]` gas-cap and evm-timeout). */
export interface ExecutionOptions {
  /** Gas cap (`gas-cap`, default 25,000,000): default and ceiling of `gas`; 0 = no cap. */
  gasCap: bigint
  /** Wall-clock limit in ms (`evm-timeout`, default 5 s; eth_call only in Evmos); 0 = none. */
  timeout: number
}

/** eth_getLogs with the range already resolved, ordered and capped by the handler. */
export interface LogQuery {
  fromBlock: number
  toBlock: number
  /** Empty = any address. */
  addresses: Uint8Array[]
  /** Positional; `null` = wildcard; an array = any of these (OR). */
  topics: (Uint8Array[] | null)[]
  /**
   * `logs-cap`: the backend may stop after `limit + 1` matches (the handler answers
   * `query returned more than <limit> results` when it gets more than `limit`); 0 = no cap.
   */
  limit: number
}

/** eth_syncing while catching up (geth fields). */
export interface SyncStatus {
  startingBlock: number
  currentBlock: number
  highestBlock: number
}

/** EIP-1186 account proof (eth_getProof) before formatting; nodes are RLP-encoded trie nodes, root first. */
export interface AccountProof {
  address: Uint8Array
  balance: bigint
  nonce: bigint
  codeHash: Uint8Array
  /** The account's storage root (the empty trie root for an account without storage). */
  storageHash: Uint8Array
  /** Path from the state root to the account (keyed by keccak256(address)). */
  accountProof: Uint8Array[]
  /** One entry per requested slot, in request order (keyed by keccak256(slot) in the storage trie). */
  storageProof: { key: Uint8Array; value: bigint; proof: Uint8Array[] }[]
}

/** eth_createAccessList's outcome (geth `accessListResult`). */
export interface AccessListResult {
  accessList: EvmAccessListItem[]
  gasUsed: bigint
  /** geth's VM error text when the execution failed (the result's `error` field), else undefined. */
  vmError: string | undefined
}

/** The pool's transactions, each list grouped by sender and in nonce order. */
export interface PoolContent {
  /** Executable transactions. */
  pending: EvmTx[]
  /** Transactions behind a nonce gap. */
  queued: EvmTx[]
}

/**
 * How far back one kind of data reaches (eth_capabilities): the oldest height the node serves it at
 * and, when the node deletes older data as the chain grows, how many recent blocks it keeps.
 */
export interface Retention {
  oldestBlock: number
  /** undefined: nothing is deleted (archive). */
  retentionBlocks?: number
}

/** What history the node holds: account state (and its proofs), and blocks with their transactions, receipts and logs. */
export interface HistoryRetention {
  state: Retention
  blocks: Retention
}

/** The node as the web3, net and eth handlers see it. */
export interface EthBackend {
  /** EIP-155 chain id (eth_chainId; net_version is its decimal form). */
  readonly chainId: bigint
  /** nodectl's semantic version without `v` (web3_clientVersion), e.g. `0.1.0`. */
  readonly version: string

  /** Height of the last committed block (eth_blockNumber; `latest`, `pending`, `safe`, `finalized`). */
  latestHeight(): number
  /** The block at `height` (0 = genesis), undefined past the head or when pruned. */
  getBlockByNumber(height: number): Promise<EvmBlock | undefined>
  /** The block with this (consensus) hash, undefined when unknown. */
  getBlockByHash(hash: Uint8Array): Promise<EvmBlock | undefined>
  /** The block's transactions in block order (same order as `block.transactions`). */
  getBlockTransactions(block: EvmBlock): Promise<EvmTx[]>
  /** The block's receipts in block order. */
  getBlockReceipts(block: EvmBlock): Promise<EvmReceipt[]>
  /** A committed transaction, or a pending one from the pool (location fields undefined). */
  getTransaction(hash: Uint8Array): Promise<EvmTx | undefined>
  /** The receipt of a committed transaction; undefined while pending or unknown. */
  getReceipt(hash: Uint8Array): Promise<EvmReceipt | undefined>
  /** Logs matching `query`, block by block in chain order. */
  getLogs(query: LogQuery): Promise<LogMatches>

  /** Account state after executing block `height` (≤ latest); at once when the node has it at hand. */
  getBalance(address: Uint8Array, height: number): Awaitable<bigint>
  getNonce(address: Uint8Array, height: number): Awaitable<bigint>
  getCode(address: Uint8Array, height: number): Promise<Uint8Array>
  /** The 32-byte value of `slot` (32 bytes). */
  getStorageAt(address: Uint8Array, slot: Uint8Array, height: number): Promise<Uint8Array>
  /** Next nonce counting the pool's executable transactions of `address` (tag `pending`). */
  getPendingNonce(address: Uint8Array): Promise<bigint>

  /**
   * Simulates a call on the state after block `height`; returns its return data. A failed execution
   * throws evm/errors.ts' `ExecutionRevertedError` (revert data and decoded reason) or
   * `VmExecutionError` (geth's text: `out of gas`, `invalid opcode: INVALID`...); other failures
   * (`gas required exceeds allowance (N)`, the timeout...) throw their typed errors too.
   */
  call(args: CallArgs, height: number, options: ExecutionOptions): Promise<Uint8Array>
  /** Estimates gas on the state after block `height`; fails as `call`. */
  estimateGas(args: CallArgs, height: number, options: ExecutionOptions): Promise<bigint>
  /**
   * eth_simulateV1 on the state after block `height` (evm/calls/simulate.ts); a request refused as a
   * whole throws `SimulateError` with the specification's code.
   */
  simulate(request: SimulateRequest, height: number, options: ExecutionOptions): Promise<SimulatedBlock[]>
  /** Admits a signed transaction to the pool; returns its hash or throws the pool's `TxPoolError` (geth's message). */
  sendRawTransaction(raw: Uint8Array): Promise<Uint8Array>

  /** Suggested priority fee (eth_maxPriorityFeePerGas; eth_gasPrice adds the latest base fee). */
  suggestGasTipCap(): Promise<bigint>
  /** Base fee of the block following `parent` (EIP-1559 with the chain's parameters and floor). */
  calcNextBaseFee(parent: EvmBlock): bigint

  /** The chain's rules as an EIP-7910 configuration (eth_config); the chain schedules no fork. */
  forkConfig(): Promise<ForkConfig>
  /** The history this node serves (eth_capabilities), read from where the node keeps it. */
  historyRetention(): HistoryRetention

  /** undefined when synced (eth_syncing `false`). */
  syncStatus(): SyncStatus | undefined
  /** The validator's fee recipient (eth_coinbase); undefined when the node has none. */
  coinbase(): Uint8Array | undefined
  /** EIP-1186 proof of an account and storage slots against the state root of block `height`. */
  getProof(address: Uint8Array, slots: Uint8Array[], height: number): Promise<AccountProof>
  /** eth_createAccessList on the state after block `height`. */
  createAccessList(args: CallArgs, height: number, options: ExecutionOptions): Promise<AccessListResult>
  /** The block this node would propose next from its pool, not executed (tag `pending`). */
  getPendingBlock(): Promise<{ block: EvmBlock; transactions: EvmTx[] }>

  /** All pooled transactions (txpool_content, txpool_inspect). */
  txPoolContent(): PoolContent
  /** One sender's pooled transactions (txpool_contentFrom). */
  txPoolContentFrom(address: Uint8Array): PoolContent
  /** Pending and queued counts (txpool_status). */
  txPoolStatus(): { pending: number; queued: number }

  /**
   * miner_setGasPrice: the pool's and CheckTx's minimum gas price from now on, persisted in app.toml
   * unless a flag or the environment set it at start.
   */
  setMinGasPrice(wei: bigint): Promise<void>
  /** miner_setEtherbase: the fee recipient of the blocks this validator proposes from now on, persisted. */
  setEtherbase(address: Uint8Array): Promise<void>

  /** Connected peers (net_peerCount). */
  peerCount(): number
  /** True when the node accepts peer connections (net_listening). */
  listening(): boolean
}
