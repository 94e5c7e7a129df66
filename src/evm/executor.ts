/**
 * Executes the transactions of one block on the consensus VM: one state checkpoint for the block,
 * `runTx` per transaction with the running block gas, then the state root (flushing the caches into
 * the trie) before the commit, so every trie write of the block is staged into the application's stage
 * (the application's Commit writes it). Transactions arrive decoded, senders recovered once.
 *
 * A transaction `runTx` refuses (nonce, funds, fee cap below base fee, intrinsic gas, no block gas
 * left) is not executed: it gets a non-zero code and no place in the EVM view. A transaction that runs
 * and fails (revert, out of gas) is executed: code 1, receipt status 0, fees charged.
 */
import type { Common } from '@ethereumjs/common'
import { createBlock, type Block } from '@ethereumjs/block'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Address } from '@ethereumjs/util'
import { encodeReceipt, runTx, type RunTxResult, type VM } from '@ethereumjs/vm'
import { EventLoopYield } from '../utils/event-loop-yield.js'
import { openCheckpoints, recoverFromEvmFault } from './state/ethereumjs-patches.js'
import { BLOOM_BYTES, bloomOr } from './store/bloom.js'
import { orderedTrieRoot } from './store/ordered-trie.js'
import { TxCode } from './txs/tx-codes.js'
import type { DecodedTx } from './txs/tx.js'
import { gethVmError, decodeRevertReason } from './vm-errors.js'

/** Zero bytes of PREVRANDAO / mixHash (BFT chains have no beacon randomness). */
const ZERO_HASH = new Uint8Array(32)

/** The header fields a block executes with. */
export interface BlockEnv {
  height: number
  /** Unix seconds of the consensus block time. */
  timestamp: number
  gasLimit: bigint
  baseFee: bigint
  /** Fee recipient of the proposer (receives the tips). */
  coinbase: Uint8Array
  /** PREVRANDAO (the header's mixHash); zero when absent. */
  mixHash?: Uint8Array
}

/**
 * A change of state a block makes that is not a transaction (a development chain's set, dev/ops.ts):
 * applied in order with the transactions, with no gas, receipt or place in the EVM view.
 */
export interface StateChange {
  applyTo(sm: MerkleStateManager): Promise<void>
}

/** What a block runs, in order: a decoded transaction, the error of bytes that did not decode, or a state change. */
export type BlockItem = DecodedTx | Error | StateChange

/** A log as the EVM emits it. */
export interface RawLog {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
}

/** A transaction that was executed and is part of the EVM view. */
export interface ExecutedTx {
  tx: DecodedTx
  /** Index among the block's executed transactions. */
  index: number
  status: 0 | 1
  gasUsed: bigint
  cumulativeGasUsed: bigint
  effectiveGasPrice: bigint
  logs: RawLog[]
  /** Block-wide index of the first log. */
  firstLogIndex: number
  /** geth's VM error text when status is 0. */
  vmError: string | undefined
  returnValue: Uint8Array
}

/** The consensus outcome of one transaction of the block. */
export interface TxOutcome {
  code: number
  log: string
  gasWanted: bigint
  gasUsed: bigint
  data: Uint8Array
  /** Present when the transaction was executed. */
  executed: ExecutedTx | undefined
}

export interface BlockExecution {
  outcomes: TxOutcome[]
  executed: ExecutedTx[]
  gasUsed: bigint
  bloom: Uint8Array
  stateRoot: Uint8Array
  transactionsRoot: Uint8Array
  receiptsRoot: Uint8Array
}

/** The ethereumjs block (header only) transactions of a height run against. */
export function createExecutionBlock(env: BlockEnv, common: Common): Block {
  return createBlock(
    {
      header: {
        number: BigInt(env.height),
        timestamp: BigInt(env.timestamp),
        gasLimit: env.gasLimit,
        baseFeePerGas: env.baseFee,
        coinbase: new Address(env.coinbase),
        mixHash: env.mixHash ?? ZERO_HASH,
      },
    },
    { common },
  )
}

/**
 * Runs `txs` (already decoded; an Error stands for bytes that did not decode, a StateChange for a dev set) on `vm`, committing the
 * block's state changes into the application's stage. On an unexpected failure the state is reverted.
 * `beforeTx` is told of each transaction about to run (a dev chain's contract console names it).
 */
export async function executeBlock(
  vm: VM,
  common: Common,
  env: BlockEnv,
  txs: readonly BlockItem[],
  beforeTx?: (tx: DecodedTx) => void,
): Promise<BlockExecution> {
  const sm = vm.stateManager as MerkleStateManager
  // Built at the first transaction: an empty block (a dev chain mines thousands in a row) needs none.
  let block: Block | undefined
  const outcomes: TxOutcome[] = []
  const executed: ExecutedTx[] = []
  const receipts: Uint8Array[] = []
  const bloom = new Uint8Array(BLOOM_BYTES)
  let gasUsed = 0n
  let logIndex = 0
  // Between two transactions, every few ms: admissions and reads go on while a full block executes.
  const turns = new EventLoopYield(1)
  await sm.checkpoint()
  try {
    for (const tx of txs) {
      const turn = turns.poll()
      if (turn !== undefined) await turn
      if (tx instanceof Error) {
        outcomes.push(refused(TxCode.TxDecode, tx.message, 0n))
        continue
      }
      if ('applyTo' in tx) {
        await tx.applyTo(sm)
        outcomes.push({ code: TxCode.OK, log: '', gasWanted: 0n, gasUsed: 0n, data: new Uint8Array(0), executed: undefined })
        continue
      }
      if (tx.gasLimit > env.gasLimit - gasUsed) {
        outcomes.push(
          refused(TxCode.OutOfGas, `gas limit reached: tx gas ${tx.gasLimit}, block gas left ${env.gasLimit - gasUsed}`, tx.gasLimit),
        )
        continue
      }
      let result: RunTxResult
      beforeTx?.(tx)
      const depth = openCheckpoints(vm)
      try {
        block ??= createExecutionBlock(env, common)
        result = await runTx(vm, { tx: tx.tx, block, blockGasUsed: gasUsed, skipBlockGasLimitValidation: false })
      } catch (err) {
        await recoverFromEvmFault(vm, depth)
        const [code, log] = classifyRunTxError(err, tx, env.baseFee)
        outcomes.push(refused(code, log, tx.gasLimit))
        continue
      }
      gasUsed += result.totalGasSpent
      const receipt = result.receipt
      const logs: RawLog[] = receipt.logs.map(([address, topics, data]) => ({ address, topics, data }))
      const exception = result.execResult.exceptionError
      const vmError = exception ? gethVmError(exception.error) : undefined
      const returnValue = result.execResult.returnValue
      const status = 'status' in receipt ? receipt.status : 1
      const done: ExecutedTx = {
        tx,
        index: executed.length,
        status,
        gasUsed: result.totalGasSpent,
        cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
        effectiveGasPrice: effectiveGasPrice(tx, env.baseFee),
        logs,
        firstLogIndex: logIndex,
        vmError,
        returnValue,
      }
      logIndex += logs.length
      bloomOr(bloom, receipt.bitvector)
      receipts.push(encodeReceipt(receipt, tx.type))
      executed.push(done)
      outcomes.push({
        code: status === 1 ? TxCode.OK : TxCode.ExecutionFailed,
        log: vmError === undefined ? '' : failureLog(vmError, returnValue),
        gasWanted: tx.gasLimit,
        gasUsed: result.totalGasSpent,
        data: returnValue,
        executed: done,
      })
    }
    // The state root (hashing every node the block changed) and the two ordered tries of a large block
    // take tens of milliseconds each: other work goes between them.
    const large = executed.length >= LARGE_BLOCK_TXS
    if (large) await turns.next()
    const stateRoot = await sm.getStateRoot()
    await sm.commit()
    if (large) await turns.next()
    const transactionsRoot = orderedTrieRoot(executed.map((e) => e.tx.raw))
    if (large) await turns.next()
    return { outcomes, executed, gasUsed, bloom, stateRoot, transactionsRoot, receiptsRoot: orderedTrieRoot(receipts) }
  } catch (err) {
    await sm.revert()
    throw err
  }
}

/**
 * Executed transactions from which a block's closing phases (state root, ordered tries, its records
 * and results) each hand the event loop over first: each takes several milliseconds from here on.
 */
export const LARGE_BLOCK_TXS = 100

/** Price per gas actually paid: min(fee cap, base fee + tip); the gas price for legacy/2930. */
export function effectiveGasPrice(tx: Pick<DecodedTx, 'maxFeePerGas' | 'maxPriorityFeePerGas'>, baseFee: bigint): bigint {
  const withTip = baseFee + tx.maxPriorityFeePerGas
  return withTip < tx.maxFeePerGas ? withTip : tx.maxFeePerGas
}

function refused(code: number, log: string, gasWanted: bigint): TxOutcome {
  return { code, log, gasWanted, gasUsed: 0n, data: new Uint8Array(0), executed: undefined }
}

function failureLog(vmError: string, returnValue: Uint8Array): string {
  if (vmError !== 'execution reverted') return vmError
  const reason = decodeRevertReason(returnValue)
  return reason === undefined ? vmError : `${vmError}: ${reason}`
}

/** Maps a runTx refusal to a code and geth's wording (core/error.go). */
export function classifyRunTxError(err: unknown, tx: DecodedTx, baseFee: bigint): [number, string] {
  const raw = err instanceof Error ? err.message : String(err)
  const msg = raw.replace(/\s*\(vm hf=.*$/s, '')
  const nonce = /account has nonce of: (\d+) tx has nonce of: (\d+)/.exec(msg)
  if (nonce) {
    const state = BigInt(nonce[1]!)
    const got = BigInt(nonce[2]!)
    return [
      TxCode.InvalidSequence,
      `${got < state ? 'nonce too low' : 'nonce too high'}: address ${tx.fromHex}, tx: ${got} state: ${state}`,
    ]
  }
  const funds = /(?:upfront cost|max cost) is: (\d+) and the sender's account \(.*?\) only has: (\d+)/.exec(msg)
  if (funds) {
    return [TxCode.InsufficientFunds, `insufficient funds for gas * price + value: address ${tx.fromHex} have ${funds[2]} want ${funds[1]}`]
  }
  if (/is less than the block's baseFeePerGas/.test(msg)) {
    return [
      TxCode.InsufficientFee,
      `max fee per gas less than block base fee: address ${tx.fromHex}, maxFeePerGas: ${tx.maxFeePerGas}, baseFee: ${baseFee}`,
    ]
  }
  const intrinsic = /INTRINSIC_GAS_TOO_LOW: tx gas limit (\d+) is lower than the minimum gas limit of (\d+)/.exec(msg)
  if (intrinsic) {
    return [TxCode.OutOfGas, `intrinsic gas too low: have ${intrinsic[1]}, want ${intrinsic[2]}`]
  }
  if (/higher gas limit than the block/.test(msg)) return [TxCode.OutOfGas, `exceeds block gas limit`]
  if (/not EOA/.test(msg)) return [TxCode.Unauthorized, `sender not an eoa: address ${tx.fromHex}`]
  return [TxCode.InvalidRequest, msg]
}
