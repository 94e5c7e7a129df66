/**
 * From a block's execution to what is stored and answered: the EvmBlock, the transaction records of
 * the EVM view, and the ExecTxResults (with their Evmos events) FinalizeBlock returns.
 */
import { keccak256 } from '../../crypto/index.js'
import { utf8ToBytes } from '../../primitives/hex.js'
import type { ExecTxResult } from '../../abci/types.js'
import { BLOOM_BYTES } from './bloom.js'
import { hashHeader } from './block-header.js'
import { createTxEvents } from '../events.js'
import { toEvmLogs, type TxRecord } from './evm-records.js'
import type { BlockEnv, BlockExecution } from '../executor.js'
import { EMPTY_TRIE_ROOT } from './ordered-trie.js'
import { TX_CODESPACE, TxCode } from '../txs/tx-codes.js'
import type { EvmBlock } from './views.js'

const ZERO_HASH = new Uint8Array(32)

/**
 * The genesis state shown as a block (no consensus block exists for it): no transactions, zero parent
 * hash and miner, empty roots; `extraData` is keccak256(utf8(chainId)), so two chains with the same
 * genesis state and time still have distinct genesis hashes.
 */
export function createGenesisEvmBlock(g: {
  chainId: string
  height: number
  stateRoot: Uint8Array
  gasLimit: bigint
  baseFee: bigint
  timestamp: number
}): EvmBlock {
  const header = {
    number: g.height,
    parentHash: ZERO_HASH,
    stateRoot: g.stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(BLOOM_BYTES),
    miner: new Uint8Array(20),
    gasLimit: g.gasLimit,
    gasUsed: 0n,
    baseFeePerGas: g.baseFee,
    timestamp: g.timestamp,
    extraData: keccak256(utf8ToBytes(g.chainId)),
    mixHash: ZERO_HASH,
  }
  return { ...header, hash: hashHeader(header), cometHash: undefined, size: 0, transactions: [] }
}

/** A transaction record plus its consensus hash (for the consensus-hash index). */
export type StoredTx = TxRecord & { cometHash: Uint8Array }

/**
 * The EVM view of an executed height: its Ethereum header over the execution results, with the
 * consensus block hash `cometHash` as extraData and the previous EVM hash as parentHash.
 */
export function createEvmBlock(env: BlockEnv, exec: BlockExecution, cometHash: Uint8Array, parentHash: Uint8Array, size: number): EvmBlock {
  const header = {
    number: env.height,
    parentHash,
    stateRoot: exec.stateRoot,
    transactionsRoot: exec.transactionsRoot,
    receiptsRoot: exec.receiptsRoot,
    logsBloom: exec.bloom,
    miner: env.coinbase,
    gasLimit: env.gasLimit,
    gasUsed: exec.gasUsed,
    baseFeePerGas: env.baseFee,
    timestamp: env.timestamp,
    extraData: cometHash,
    mixHash: env.mixHash ?? ZERO_HASH,
  }
  return { ...header, hash: hashHeader(header), cometHash, size, transactions: exec.executed.map((e) => e.tx.hash) }
}

/** The records of the executed transactions, in EVM index order. */
export function createTxRecords(exec: BlockExecution, height: number, blockHash: Uint8Array): StoredTx[] {
  return exec.executed.map((e) => ({
    hash: e.tx.hash,
    cometHash: e.tx.cometHash,
    height,
    index: e.index,
    blockHash,
    raw: e.tx.raw,
    from: e.tx.from,
    status: e.status,
    cumulativeGasUsed: e.cumulativeGasUsed,
    gasUsed: e.gasUsed,
    effectiveGasPrice: e.effectiveGasPrice,
    firstLogIndex: e.firstLogIndex,
    logs: e.logs,
  }))
}

/** One ExecTxResult per consensus tx; executed ones carry their events. */
export function createExecTxResults(exec: BlockExecution, records: readonly StoredTx[]): ExecTxResult[] {
  return exec.outcomes.map((o) => {
    const e = o.executed
    const events = e
      ? createTxEvents({
          hash: e.tx.hash,
          cometHash: e.tx.cometHash,
          txIndex: e.index,
          gasUsed: e.gasUsed,
          from: e.tx.from,
          to: e.tx.tx.to?.bytes,
          value: e.tx.value,
          type: e.tx.type,
          failed: e.vmError,
          logs: toEvmLogs(records[e.index]!),
        })
      : []
    return {
      code: o.code,
      data: o.data,
      log: o.log,
      info: '',
      gasWanted: o.gasWanted,
      gasUsed: o.gasUsed,
      events,
      codespace: o.code === TxCode.OK ? '' : TX_CODESPACE,
    }
  })
}
