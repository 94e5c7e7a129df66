/**
 * Compact binary (RLP) records of the EVM view, and their conversion to the view types.
 *
 * Block record (key `evmBlock ‖ height`):
 *   RLP[hash, parentHash, stateRoot, transactionsRoot, receiptsRoot, logsBloom, miner, gasLimit,
 *       gasUsed, baseFeePerGas, timestamp, size, [txHash…], extraData, mixHash, cometHash]
 *   (cometHash empty for the genesis block). Records without the last three were written when the
 *   EVM hash was the consensus hash: they are refused (BLOCK_RECORD_FIELDS).
 * Transaction record (key `evmTxIndex ‖ evmHash`), one read serves both the tx and its receipt:
 *   RLP[height, index, blockHash, raw, from, status, cumulativeGasUsed, gasUsed, effectiveGasPrice,
 *       firstLogIndex, [[address, [topic…], data]…]]
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../../crypto/index.js'
import { bytesToBigint } from '../../primitives/hex.js'
import { logsBloom } from './bloom.js'
import type { RawLog } from '../executor.js'
import { parseRawTx } from '../txs/raw-tx.js'
import type { EvmBlock, EvmLog, EvmReceipt, EvmTx } from './views.js'

/**
 * Fields of a block record. Older stores (13 fields) hold blocks whose `hash` was the consensus block
 * hash: their parent hashes and BLOCKHASH answers cannot become Ethereum header hashes, so they are
 * not read.
 */
const BLOCK_RECORD_FIELDS = 16

type Nested = Uint8Array | Nested[]

/** A stored transaction with its execution result and location. */
export interface TxRecord {
  hash: Uint8Array
  height: number
  index: number
  blockHash: Uint8Array
  raw: Uint8Array
  from: Uint8Array
  status: 0 | 1
  cumulativeGasUsed: bigint
  gasUsed: bigint
  effectiveGasPrice: bigint
  firstLogIndex: number
  logs: RawLog[]
}

function b(x: Nested | undefined): Uint8Array {
  if (!(x instanceof Uint8Array)) throw new Error('malformed EVM record')
  return x
}
function n(x: Nested | undefined): number {
  return Number(bytesToBigint(b(x)))
}
function big(x: Nested | undefined): bigint {
  return bytesToBigint(b(x))
}
function list(x: Nested | undefined): Nested[] {
  if (!Array.isArray(x)) throw new Error('malformed EVM record')
  return x
}

export function encodeBlockRecord(block: EvmBlock): Uint8Array {
  return RLP.encode([
    block.hash,
    block.parentHash,
    block.stateRoot,
    block.transactionsRoot,
    block.receiptsRoot,
    block.logsBloom,
    block.miner,
    block.gasLimit,
    block.gasUsed,
    block.baseFeePerGas,
    block.timestamp,
    block.size,
    block.transactions,
    block.extraData,
    block.mixHash,
    block.cometHash ?? new Uint8Array(0),
  ])
}

export function decodeBlockRecord(height: number, bytes: Uint8Array): EvmBlock {
  const f = RLP.decode(bytes) as Nested[]
  if (f.length !== BLOCK_RECORD_FIELDS) {
    throw new Error(
      `EVM store: block ${height} was written by an older nodectl, whose EVM block hashes were the consensus hashes; ` +
        'this data cannot be read. A --dev chain is throw-away: start it again in a new (or emptied) home',
    )
  }
  const cometHash = b(f[15])
  return {
    number: height,
    hash: b(f[0]),
    parentHash: b(f[1]),
    stateRoot: b(f[2]),
    transactionsRoot: b(f[3]),
    receiptsRoot: b(f[4]),
    logsBloom: b(f[5]),
    miner: b(f[6]),
    gasLimit: big(f[7]),
    gasUsed: big(f[8]),
    baseFeePerGas: big(f[9]),
    timestamp: n(f[10]),
    size: n(f[11]),
    transactions: list(f[12]).map(b),
    extraData: b(f[13]),
    mixHash: b(f[14]),
    cometHash: cometHash.length === 0 ? undefined : cometHash,
  }
}

export function encodeTxRecord(r: TxRecord): Uint8Array {
  return RLP.encode([
    r.height,
    r.index,
    r.blockHash,
    r.raw,
    r.from,
    r.status,
    r.cumulativeGasUsed,
    r.gasUsed,
    r.effectiveGasPrice,
    r.firstLogIndex,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ])
}

export function decodeTxRecord(hash: Uint8Array, bytes: Uint8Array): TxRecord {
  const f = RLP.decode(bytes) as Nested[]
  return {
    hash,
    height: n(f[0]),
    index: n(f[1]),
    blockHash: b(f[2]),
    raw: b(f[3]),
    from: b(f[4]),
    status: n(f[5]) === 1 ? 1 : 0,
    cumulativeGasUsed: big(f[6]),
    gasUsed: big(f[7]),
    effectiveGasPrice: big(f[8]),
    firstLogIndex: n(f[9]),
    logs: list(f[10]).map((l) => {
      const [address, topics, data] = list(l)
      return { address: b(address), topics: list(topics).map(b), data: b(data) }
    }),
  }
}

/** The EvmTx of a record (gasPrice of a 1559 tx is the effective price, as mined). */
export function toEvmTx(r: TxRecord): EvmTx {
  return evmTxOf(r.raw, r.hash, r.from, {
    blockNumber: r.height,
    blockHash: r.blockHash,
    transactionIndex: r.index,
    effectiveGasPrice: r.effectiveGasPrice,
  })
}

/** A pooled transaction as the RPC shows it: no block fields; a 1559 tx shows its fee cap as gasPrice. */
export function toPendingEvmTx(raw: Uint8Array, hash: Uint8Array, from: Uint8Array): EvmTx {
  return evmTxOf(raw, hash, from, undefined)
}

interface TxLocation {
  blockNumber: number
  blockHash: Uint8Array
  transactionIndex: number
  effectiveGasPrice: bigint
}

function evmTxOf(raw: Uint8Array, hash: Uint8Array, from: Uint8Array, at: TxLocation | undefined): EvmTx {
  const f = parseRawTx(raw)
  return {
    hash,
    type: f.type,
    from,
    to: f.to,
    nonce: f.nonce,
    gas: f.gas,
    value: f.value,
    input: f.input,
    gasPrice: f.maxFeePerGas !== undefined ? (at ? at.effectiveGasPrice : f.maxFeePerGas) : f.gasPrice,
    maxFeePerGas: f.maxFeePerGas,
    maxPriorityFeePerGas: f.maxPriorityFeePerGas,
    accessList: f.accessList,
    authorizationList: f.authorizationList,
    chainId: f.chainId,
    v: f.v,
    r: f.r,
    s: f.s,
    blockNumber: at?.blockNumber,
    blockHash: at?.blockHash,
    transactionIndex: at?.transactionIndex,
  }
}

/** The logs of a record with their block-wide indexes. */
export function toEvmLogs(r: TxRecord): EvmLog[] {
  return r.logs.map((l, i) => ({
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockNumber: r.height,
    blockHash: r.blockHash,
    transactionHash: r.hash,
    transactionIndex: r.index,
    logIndex: r.firstLogIndex + i,
    removed: false,
  }))
}

/** The EvmReceipt of a record (bloom recomputed from the logs; contract address = CREATE(from, nonce)). */
export function toEvmReceipt(r: TxRecord): EvmReceipt {
  const f = parseRawTx(r.raw)
  return {
    transactionHash: r.hash,
    transactionIndex: r.index,
    blockHash: r.blockHash,
    blockNumber: r.height,
    from: r.from,
    to: f.to,
    contractAddress: f.to === undefined ? createAddress(r.from, f.nonce) : undefined,
    cumulativeGasUsed: r.cumulativeGasUsed,
    gasUsed: r.gasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    logs: toEvmLogs(r),
    logsBloom: logsBloom(r.logs),
    status: r.status,
    type: f.type,
  }
}

/** Address of a contract created by `from` with `nonce`: keccak256(RLP[from, nonce])[12:]. */
export function createAddress(from: Uint8Array, nonce: bigint): Uint8Array {
  return keccak256(RLP.encode([from, nonce])).subarray(12)
}
