/**
 * The EVM view of the chain: blocks, transactions, receipts and logs as Ethereum clients see them.
 * The chain produces these records; the eth API formats them (QUANTITY/DATA) without further lookups.
 */

export interface EvmLog {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
  blockNumber: number
  blockHash: Uint8Array
  transactionHash: Uint8Array
  transactionIndex: number
  /** Block-wide index. */
  logIndex: number
  removed: boolean
}

/** The transaction types a chain may hold: legacy, EIP-2930, EIP-1559, and EIP-7702 on a dev chain. */
export type EvmTxType = 0 | 1 | 2 | 4

export interface EvmAccessListItem {
  address: Uint8Array
  storageKeys: Uint8Array[]
}

/** One signed authorization of an EIP-7702 set-code transaction: `address`'s code delegated to by its signer. */
export interface EvmAuthorization {
  chainId: bigint
  address: Uint8Array
  nonce: bigint
  yParity: bigint
  r: bigint
  s: bigint
}

/** A signed transaction; the location fields are undefined while it is pending. */
export interface EvmTx {
  hash: Uint8Array
  type: EvmTxType
  from: Uint8Array
  /** undefined for a contract creation. */
  to: Uint8Array | undefined
  nonce: bigint
  gas: bigint
  value: bigint
  input: Uint8Array
  /** Legacy/2930: the price; 1559: the effective price once mined, the fee cap while pending. */
  gasPrice: bigint
  maxFeePerGas: bigint | undefined
  maxPriorityFeePerGas: bigint | undefined
  accessList: EvmAccessListItem[] | undefined
  /** Set-code transactions (type 4) only. */
  authorizationList?: EvmAuthorization[] | undefined
  /** undefined for an unprotected legacy transaction. */
  chainId: bigint | undefined
  v: bigint
  r: bigint
  s: bigint
  blockNumber: number | undefined
  blockHash: Uint8Array | undefined
  transactionIndex: number | undefined
}

export interface EvmReceipt {
  transactionHash: Uint8Array
  transactionIndex: number
  blockHash: Uint8Array
  blockNumber: number
  from: Uint8Array
  to: Uint8Array | undefined
  /** Set for a contract creation (even when it failed), else undefined. */
  contractAddress: Uint8Array | undefined
  cumulativeGasUsed: bigint
  gasUsed: bigint
  effectiveGasPrice: bigint
  logs: EvmLog[]
  logsBloom: Uint8Array
  /** 1 success, 0 failure. */
  status: 0 | 1
  type: EvmTxType
}

export interface EvmBlock {
  number: number
  /** keccak256 of the RLP of the block's Ethereum header (block-header.ts). */
  hash: Uint8Array
  /**
   * The hash of the consensus (CometBFT) block of this height, as the consensus RPC shows it; undefined
   * for the genesis block (no consensus block) and the pending one.
   */
  cometHash: Uint8Array | undefined
  parentHash: Uint8Array
  /** MPT root after executing this block. */
  stateRoot: Uint8Array
  transactionsRoot: Uint8Array
  receiptsRoot: Uint8Array
  logsBloom: Uint8Array
  /** The proposer's fee recipient. */
  miner: Uint8Array
  gasLimit: bigint
  gasUsed: bigint
  baseFeePerGas: bigint
  /** Unix seconds. */
  timestamp: number
  /** Bytes of the consensus block (protobuf), as CometBFT's Block.Size(). */
  size: number
  /** The consensus block hash (32 bytes); for the genesis block keccak256 of the consensus chain id; empty for the pending one. */
  extraData: Uint8Array
  /** PREVRANDAO (zero: BFT consensus has no beacon randomness). */
  mixHash: Uint8Array
  /** EVM transaction hashes in block order. */
  transactions: Uint8Array[]
}
