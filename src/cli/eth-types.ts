/**
 * The shapes of EVM JSON-RPC results as the client commands use them (execution-apis names; every
 * number a hex QUANTITY). Only the fields the tables show are spelled out; the rest pass through.
 */

/** A log (`eth_getLogs`, receipts, `logs` subscriptions). */
export interface RpcLog {
  address: string
  topics: string[]
  data: string
  blockNumber: string
  blockHash: string
  transactionHash: string
  transactionIndex: string
  logIndex: string
  removed: boolean
}

/** A transaction (`eth_getTransactionByHash`, full blocks). */
export interface RpcTransaction {
  hash: string
  from: string
  to: string | null
  value: string
  nonce: string
  gas: string
  gasPrice?: string
  input: string
  blockNumber: string | null
  blockHash: string | null
  transactionIndex: string | null
  type: string
  [key: string]: unknown
}

/** A block (`eth_getBlockByNumber/ByHash`, `newHeads` without transactions). */
export interface RpcBlock {
  number: string
  hash: string
  parentHash: string
  timestamp: string
  gasUsed: string
  gasLimit: string
  baseFeePerGas?: string
  miner: string
  stateRoot: string
  transactions?: (string | RpcTransaction)[]
  [key: string]: unknown
}

/** A receipt (`eth_getTransactionReceipt`). */
export interface RpcReceipt {
  transactionHash: string
  blockNumber: string
  blockHash: string
  from: string
  to: string | null
  status: string
  gasUsed: string
  cumulativeGasUsed: string
  effectiveGasPrice: string
  contractAddress: string | null
  logs: RpcLog[]
  [key: string]: unknown
}

/** `eth_feeHistory`. */
export interface RpcFeeHistory {
  oldestBlock: string
  baseFeePerGas: string[]
  gasUsedRatio: number[]
  reward?: string[][]
  [key: string]: unknown
}
