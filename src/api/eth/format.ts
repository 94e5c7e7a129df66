/**
 * EVM view records → the JSON objects of the eth namespace (spec "Resources and their fields", the
 * execution-apis schemas, geth's `RPCMarshalBlock` / `newRPCTransaction` / `MarshalReceipt`).
 * QUANTITY is compact lower-case hex, DATA lower-case hex, addresses lower-case (as geth).
 */
import {
  BLOB_GAS_USED,
  EMPTY_UNCLES_HASH as HEADER_UNCLES_HASH,
  EXCESS_BLOB_GAS,
  PARENT_BEACON_BLOCK_ROOT,
  WITHDRAWALS_ROOT,
  ZERO_NONCE as HEADER_NONCE,
} from '../../evm/store/block-header.js'
import type { EvmAccessListItem, EvmAuthorization, EvmBlock, EvmLog, EvmReceipt, EvmTx } from '../../evm/store/views.js'
import { toQuantity } from '../../primitives/quantity.js'

/**
 * DATA (`0x` + two lower-case hex digits per byte), as `bytesToHex` but with Buffer's native
 * encoder: this is the formatting hot spot (256-byte blooms, every hash).
 */
export function encodeData(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

/**
 * Keccak-256 of the RLP of an empty list: the ommers hash of every block without uncles. The spec lists
 * `sha3Uncles` as null, but the execution-apis schema requires a hash32, geth's `ethclient` and alloy
 * refuse a header without it, and the block hash covers it.
 */
export const EMPTY_UNCLES_HASH = encodeData(HEADER_UNCLES_HASH)

/**
 * Block `nonce`: the spec lists it as null; the execution-apis schema requires 8 bytes and alloy/geth
 * clients parse it as such. BFT blocks have no proof of work: eight zero bytes, as geth after the merge.
 */
const ZERO_NONCE = encodeData(HEADER_NONCE)
/** The Cancun header fields every block has the same values of (block-header.ts). */
const WITHDRAWALS_ROOT_JSON = encodeData(WITHDRAWALS_ROOT)
const BLOB_GAS_USED_JSON = toQuantity(BLOB_GAS_USED)
const EXCESS_BLOB_GAS_JSON = toQuantity(EXCESS_BLOB_GAS)
const PARENT_BEACON_BLOCK_ROOT_JSON = encodeData(PARENT_BEACON_BLOCK_ROOT)

export interface LogJson {
  address: string
  topics: string[]
  data: string
  blockNumber: string
  transactionHash: string
  transactionIndex: string
  blockHash: string
  logIndex: string
  removed: boolean
}

export function formatLog(log: EvmLog): LogJson {
  return {
    address: encodeData(log.address),
    topics: log.topics.map(encodeData),
    data: encodeData(log.data),
    blockNumber: toQuantity(log.blockNumber),
    transactionHash: encodeData(log.transactionHash),
    transactionIndex: toQuantity(log.transactionIndex),
    blockHash: encodeData(log.blockHash),
    logIndex: toQuantity(log.logIndex),
    removed: log.removed,
  }
}

export interface AccessListJson {
  address: string
  storageKeys: string[]
}

function formatAccessList(list: EvmAccessListItem[] | undefined): AccessListJson[] {
  return (list ?? []).map((item) => ({ address: encodeData(item.address), storageKeys: item.storageKeys.map(encodeData) }))
}

export interface TransactionJson {
  blockHash: string | null
  blockNumber: string | null
  blockTimestamp: string | null
  from: string
  gas: string
  gasPrice: string
  maxFeePerGas?: string
  maxPriorityFeePerGas?: string
  hash: string
  input: string
  nonce: string
  to: string | null
  transactionIndex: string | null
  value: string
  type: string
  accessList?: AccessListJson[]
  chainId?: string
  v: string
  r: string
  s: string
  yParity?: string
  authorizationList?: AuthorizationJson[]
}

export interface AuthorizationJson {
  chainId: string
  address: string
  nonce: string
  yParity: string
  r: string
  s: string
}

/**
 * A transaction as geth's `newRPCTransaction`: the location fields (and `blockTimestamp`, which the
 * execution-apis `TransactionInfo` requires) are null while pending; `chainId` for typed and
 * EIP-155-protected legacy transactions; `accessList` and `yParity` for types 1 and 2; the fee caps
 * for type 2. `gasPrice` is the record's: the effective price once mined, the fee cap while pending.
 * `blockTimestamp` is the including block's time; give it when known.
 */
export function formatTransaction(tx: EvmTx, blockTimestamp?: number): TransactionJson {
  const mined = tx.blockHash !== undefined && tx.blockNumber !== undefined && tx.transactionIndex !== undefined
  const out: TransactionJson = {
    blockHash: mined ? encodeData(tx.blockHash!) : null,
    blockNumber: mined ? toQuantity(tx.blockNumber!) : null,
    blockTimestamp: mined && blockTimestamp !== undefined ? toQuantity(blockTimestamp) : null,
    from: encodeData(tx.from),
    gas: toQuantity(tx.gas),
    gasPrice: toQuantity(tx.gasPrice),
    hash: encodeData(tx.hash),
    input: encodeData(tx.input),
    nonce: toQuantity(tx.nonce),
    to: tx.to === undefined ? null : encodeData(tx.to),
    transactionIndex: mined ? toQuantity(tx.transactionIndex!) : null,
    value: toQuantity(tx.value),
    type: toQuantity(tx.type),
    v: toQuantity(tx.v),
    r: toQuantity(tx.r),
    s: toQuantity(tx.s),
  }
  if (tx.type === 2 || tx.type === 4) {
    out.maxFeePerGas = toQuantity(tx.maxFeePerGas ?? tx.gasPrice)
    out.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas ?? tx.gasPrice)
  }
  if (tx.type !== 0) {
    out.accessList = formatAccessList(tx.accessList)
    out.yParity = toQuantity(tx.v)
  }
  if (tx.authorizationList !== undefined) out.authorizationList = tx.authorizationList.map(formatAuthorization)
  if (tx.chainId !== undefined && (tx.type !== 0 || tx.chainId !== 0n)) out.chainId = toQuantity(tx.chainId)
  return out
}

/** An EIP-7702 authorization as geth's `SetCodeAuthorization` JSON. */
function formatAuthorization(a: EvmAuthorization): AuthorizationJson {
  return {
    chainId: toQuantity(a.chainId),
    address: encodeData(a.address),
    nonce: toQuantity(a.nonce),
    yParity: toQuantity(a.yParity),
    r: toQuantity(a.r),
    s: toQuantity(a.s),
  }
}

export interface ReceiptJson {
  blockHash: string
  blockNumber: string
  contractAddress: string | null
  cumulativeGasUsed: string
  effectiveGasPrice: string
  from: string
  gasUsed: string
  logs: LogJson[]
  logsBloom: string
  status: string
  to: string | null
  transactionHash: string
  transactionIndex: string
  type: string
}

/**
 * A receipt as geth's `MarshalReceipt`: every field always present (`effectiveGasPrice` for every
 * type, unlike Evmos which omits it for legacy txs), `contractAddress` and `to` null when absent.
 */
export function formatReceipt(receipt: EvmReceipt): ReceiptJson {
  return {
    blockHash: encodeData(receipt.blockHash),
    blockNumber: toQuantity(receipt.blockNumber),
    contractAddress: receipt.contractAddress === undefined ? null : encodeData(receipt.contractAddress),
    cumulativeGasUsed: toQuantity(receipt.cumulativeGasUsed),
    effectiveGasPrice: toQuantity(receipt.effectiveGasPrice),
    from: encodeData(receipt.from),
    gasUsed: toQuantity(receipt.gasUsed),
    logs: receipt.logs.map(formatLog),
    logsBloom: encodeData(receipt.logsBloom),
    status: toQuantity(receipt.status),
    to: receipt.to === undefined ? null : encodeData(receipt.to),
    transactionHash: encodeData(receipt.transactionHash),
    transactionIndex: toQuantity(receipt.transactionIndex),
    type: toQuantity(receipt.type),
  }
}

export interface BlockJson {
  number: string
  hash: string
  parentHash: string
  nonce: string
  mixHash: string
  sha3Uncles: string
  logsBloom: string
  transactionsRoot: string
  stateRoot: string
  receiptsRoot: string
  miner: string
  difficulty: string
  totalDifficulty: null
  extraData: string
  size: string
  gasLimit: string
  gasUsed: string
  timestamp: string
  baseFeePerGas: string
  withdrawalsRoot: string
  blobGasUsed: string
  excessBlobGas: string
  parentBeaconBlockRoot: string
  transactions: string[] | TransactionJson[]
  uncles: string[]
  withdrawals: []
  /** Not an Ethereum field: the consensus (CometBFT) block hash of this height; null for genesis and pending. */
  cometHash: string | null
}

/**
 * A block as geth's `RPCMarshalBlock`. `txs` are the full transactions (fullTx = true), else the
 * hashes are listed. Choices where the spec (Evmos docs) and clients disagree:
 * - `difficulty` `0x0`: the spec says null, but ethers v6 (`getBigInt`) throws on null and the schema
 *   types it as uint; geth and Evmos send `0x0`.
 * - `nonce`, `sha3Uncles`: see ZERO_NONCE and EMPTY_UNCLES_HASH.
 * - `totalDifficulty` null as the spec says: viem maps null to null, ethers ignores it, the schema
 *   does not define it (geth dropped it after the merge).
 * - the Cancun fields `withdrawalsRoot`, `blobGasUsed`, `excessBlobGas`, `parentBeaconBlockRoot` are
 *   present, as in the header the hash is computed over (evm/store/block-header.ts): with the other
 *   header fields they rebuild the header, whose keccak256 is `hash`; `withdrawals` is the empty list.
 * - `cometHash` (not an Ethereum field) is the consensus block hash of the height, the `block_id.hash`
 *   of the consensus RPC's `/block?height=` (also the header's `extraData`).
 */
export function formatBlock(block: EvmBlock, txs?: EvmTx[]): BlockJson {
  return {
    number: toQuantity(block.number),
    hash: encodeData(block.hash),
    parentHash: encodeData(block.parentHash),
    nonce: ZERO_NONCE,
    mixHash: encodeData(block.mixHash),
    sha3Uncles: EMPTY_UNCLES_HASH,
    logsBloom: encodeData(block.logsBloom),
    transactionsRoot: encodeData(block.transactionsRoot),
    stateRoot: encodeData(block.stateRoot),
    receiptsRoot: encodeData(block.receiptsRoot),
    miner: encodeData(block.miner),
    difficulty: '0x0',
    totalDifficulty: null,
    extraData: encodeData(block.extraData),
    size: toQuantity(block.size),
    gasLimit: toQuantity(block.gasLimit),
    gasUsed: toQuantity(block.gasUsed),
    timestamp: toQuantity(block.timestamp),
    baseFeePerGas: toQuantity(block.baseFeePerGas),
    withdrawalsRoot: WITHDRAWALS_ROOT_JSON,
    blobGasUsed: BLOB_GAS_USED_JSON,
    excessBlobGas: EXCESS_BLOB_GAS_JSON,
    parentBeaconBlockRoot: PARENT_BEACON_BLOCK_ROOT_JSON,
    transactions: txs === undefined ? block.transactions.map(encodeData) : txs.map((tx) => formatTransaction(tx, block.timestamp)),
    uncles: [],
    withdrawals: [],
    cometHash: block.cometHash === undefined ? null : encodeData(block.cometHash),
  }
}
