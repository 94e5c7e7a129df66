/**
 * eth_simulateV1 (execution-apis `eth_simulateV1`, geth internal/ethapi/simulate.go): blocks of calls
 * executed one after the other on the state after a committed block, each call seeing what the
 * previous ones wrote, each block with its own block and state overrides; the answer is every block
 * as eth_getBlockByNumber would show it, plus each call's outcome.
 *
 * - Blocks: simulate-chain.ts settles numbers and times. A block takes the gas limit and fee
 *   recipient of the block before it unless overridden; its base fee is the override, else with
 *   `validation` the EIP-1559 successor of the parent's, else 0 (geth). Its header is a real one:
 *   state, transactions and receipts roots, bloom, and its hash is keccak256 of its RLP, the parent
 *   hash chaining from the base block; BLOCKHASH inside the simulation sees the simulated hashes.
 * - Calls: each is an unsigned EIP-1559 transaction from `from` (an EIP-7702 one with an
 *   authorization list): nonce the sender's unless given, gas the block's remaining gas unless given,
 *   fee fields as given (0 otherwise). Checks before it runs (simulate-call.ts), each a request-wide
 *   error with the specification's code: block gas limit, intrinsic gas, init code size, the sender's
 *   balance for gas × fee cap + value, the fee cap against the base fee, with `validation` the nonce;
 *   without `validation` a call paying no fee runs in a block with base fee 0 (geth's NoBaseFee). A
 *   call that fails in the EVM (revert, out of gas) is that call's result, not an error.
 * - State overrides apply at the start of their block, precompile moves included
 *   (simulate-precompiles.ts); logs and ERC-7528 transfer logs are collected per frame
 *   (simulate-logs.ts).
 * - Bounds: at most MAX_SIMULATED_BLOCKS blocks; all calls together use at most the RPC gas cap (each
 *   call's gas is cut to what is left of it, as geth's gas pool); the whole request runs within the
 *   EVM timeout.
 *
 * It runs on a fresh state copy of its own on the calling thread, like eth_createAccessList: the
 * request writes state across calls and blocks, which the shared call copies must never see.
 */
import type { Common } from '@ethereumjs/common'
import type { EVM, EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { runTx, type VM } from '@ethereumjs/vm'
import type { Database } from '../../db/database.js'
import { NodeError } from '../../utils/errors.js'
import { CallTimeoutError } from '../errors.js'
import { createExecutionBlock, type BlockEnv, type RawLog } from '../executor.js'
import { calcBaseFee } from '../fee-market.js'
import type { FeeMarketParams } from '../genesis.js'
import { StateCopy, type StateAt } from '../state/state-copy.js'
import { createVmCopy } from '../state/state.js'
import { hashHeader } from '../store/block-header.js'
import { logsBloom } from '../store/bloom.js'
import { orderedTrieRoot } from '../store/ordered-trie.js'
import { encodeRawBlock, encodeRawReceipt } from '../store/raw-block.js'
import type { EvmBlock, EvmLog, EvmTx } from '../store/views.js'
import { HooksAdapter } from '../tracing/hooks-adapter.js'
import { TraceDeadline } from '../tracing/trace-deadline.js'
import { TraceTimeoutError } from '../tracing/trace-errors.js'
import { applyStateOverrides } from './call-overrides.js'
import type { CallOptions } from './calls.js'
import { callOutcome, hideSenderCode, prepareCall, type SimulatedCall } from './simulate-call.js'
import { planBlocks, type PlannedBlock, type SimAccountOverride, type SimulateRequest } from './simulate-chain.js'
import { SimulateCode, SimulateError } from './simulate-errors.js'
import { SimulatedLogs } from './simulate-logs.js'
import { SimulatedPrecompiles } from './simulate-precompiles.js'

export type { SimulatedCall } from './simulate-call.js'
export type { SimAccountOverride, SimBlockInput, SimulateRequest } from './simulate-chain.js'

const ZERO_HASH = new Uint8Array(32)

/** One simulated block: its header view, its transactions and its calls' outcomes. */
export interface SimulatedBlock {
  block: EvmBlock
  transactions: EvmTx[]
  calls: SimulatedCall[]
}

export interface SimulateDeps {
  db: Database
  common: Common
  blockchain: EVMMockBlockchainInterface
  /** The RPC gas cap (all calls together) and EVM timeout (the whole request). */
  options: CallOptions
  feeMarket: FeeMarketParams
  /** Installs system contracts on the copy's VM (validator-admin.ts); default none. */
  prepareVm?: (vm: VM) => void
}

/** The header fields a block takes from the one before it. */
interface Parent {
  number: number
  hash: Uint8Array
  gasLimit: bigint
  gasUsed: bigint
  baseFeePerGas: bigint
  miner: Uint8Array
}

/** Simulates `request` on the state after `base` (whose state is `state`). */
export async function simulate(deps: SimulateDeps, state: StateAt, base: EvmBlock, request: SimulateRequest): Promise<SimulatedBlock[]> {
  const planned = planBlocks({ number: BigInt(base.number), time: BigInt(base.timestamp) }, request.blocks)
  const hashes = new Map<number, Uint8Array>()
  const chain: EVMMockBlockchainInterface = {
    getBlock: async (n: number) => {
      const hash = hashes.get(n)
      return hash ? { hash: () => hash } : deps.blockchain.getBlock(n)
    },
    putBlock: async () => {},
    shallowCopy() {
      return this
    },
  }
  const common = deps.common.copy()
  const vm = await createVmCopy(deps.db, common, chain, state.stateRoot)
  deps.prepareVm?.(vm)
  const run = new Simulation(deps, new StateCopy(vm, state, common), request)
  const out: SimulatedBlock[] = []
  let parent: Parent = base
  try {
    for (const block of planned) {
      const simulated = await run.block(block, parent)
      hashes.set(simulated.block.number, simulated.block.hash)
      out.push(simulated)
      parent = simulated.block
    }
  } catch (err) {
    if (err instanceof CallTimeoutError || err instanceof TraceTimeoutError)
      throw new SimulateError(SimulateCode.timeout, new CallTimeoutError(deps.options.evmTimeoutMs).message)
    throw err
  }
  return out
}

/** One request's state copy, gas left and deadline. */
class Simulation {
  private readonly adapter: HooksAdapter
  private readonly precompiles: SimulatedPrecompiles
  /** What is left of the gas cap; undefined = no cap. */
  private budget: bigint | undefined
  private readonly deadline: TraceDeadline

  constructor(
    private readonly deps: SimulateDeps,
    private readonly copy: StateCopy,
    private readonly request: SimulateRequest,
  ) {
    const evm = copy.vm.evm as EVM
    this.adapter = new HooksAdapter(evm, copy.sm)
    this.precompiles = new SimulatedPrecompiles(evm)
    this.budget = deps.options.gasCap > 0n ? deps.options.gasCap : undefined
    const timeout = deps.options.evmTimeoutMs
    copy.timeoutMs = timeout
    copy.deadline = timeout > 0 ? performance.now() + timeout : Infinity
    this.deadline = new TraceDeadline(timeout > 0 ? timeout : Number.MAX_SAFE_INTEGER)
  }

  async block(planned: PlannedBlock, parent: Parent): Promise<SimulatedBlock> {
    const o = planned.blockOverrides
    const baseFee =
      o?.baseFee ?? (this.request.validation ? calcBaseFee({ ...parent, baseFee: parent.baseFeePerGas }, this.deps.feeMarket) : 0n)
    const env: BlockEnv & { mixHash: Uint8Array } = {
      height: Number(planned.number),
      timestamp: Number(planned.time),
      gasLimit: o?.gasLimit ?? parent.gasLimit,
      baseFee,
      coinbase: o?.coinbase ?? parent.miner,
      mixHash: o?.random ?? ZERO_HASH,
    }
    await this.applyOverrides(planned.stateOverrides)
    const sm = this.copy.sm
    const calls: SimulatedCall[] = []
    const txs: EvmTx[] = []
    const rawTxs: Uint8Array[] = []
    const receipts: Uint8Array[] = []
    const blockLogs: RawLog[] = []
    let gasUsed = 0n
    let logIndex = 0
    for (const [index, args] of planned.calls.entries()) {
      const context = { sm, common: this.copy.vm.common, validation: this.request.validation, budget: this.budget }
      const { tx, view, feeLess, intrinsic } = await prepareCall(context, args, env, gasUsed, index)
      const logs = new SimulatedLogs(this.request.traceTransfers)
      const block = createExecutionBlock({ ...env, baseFee: feeLess ? 0n : baseFee }, this.copy.vm.common)
      const restore = hideSenderCode(sm, tx.getSenderAddress())
      const result = await this.adapter.run(logs, this.deadline, () =>
        runTx(this.copy.vm, {
          tx,
          block,
          blockGasUsed: gasUsed,
          skipNonce: true,
          skipBlockGasLimitValidation: true,
          skipHardForkValidation: true,
        })
          .catch((err: unknown) => {
            if (err instanceof CallTimeoutError || err instanceof TraceTimeoutError) throw err
            throw new SimulateError(SimulateCode.internal, err instanceof Error ? err.message.replace(/\s*\(vm hf=.*$/s, '') : String(err))
          })
          .finally(restore),
      )
      gasUsed += result.totalGasSpent
      if (this.budget !== undefined) this.budget -= result.totalGasSpent
      const stateLogs = (result.execResult.logs ?? []).map(([address, topics, data]): RawLog => ({ address, topics, data }))
      blockLogs.push(...stateLogs)
      receipts.push(
        encodeRawReceipt({
          type: view.type,
          status: result.execResult.exceptionError ? 0 : 1,
          cumulativeGasUsed: gasUsed,
          logs: stateLogs,
        }),
      )
      rawTxs.push(tx.serialize())
      txs.push(view)
      const callLogs = logs.result().map(
        (log): EvmLog => ({
          ...log,
          blockNumber: env.height,
          blockHash: ZERO_HASH,
          transactionHash: view.hash,
          transactionIndex: index,
          logIndex: logIndex++,
          removed: false,
        }),
      )
      calls.push(callOutcome(result, callLogs, intrinsic))
    }
    const header: Omit<EvmBlock, 'hash' | 'size'> = {
      number: env.height,
      cometHash: undefined,
      parentHash: parent.hash,
      stateRoot: await sm.getStateRoot(),
      transactionsRoot: orderedTrieRoot(rawTxs),
      receiptsRoot: orderedTrieRoot(receipts),
      logsBloom: logsBloom(blockLogs),
      miner: env.coinbase,
      gasLimit: env.gasLimit,
      gasUsed,
      baseFeePerGas: baseFee,
      timestamp: env.timestamp,
      extraData: new Uint8Array(0),
      mixHash: env.mixHash,
      transactions: txs.map((t) => t.hash),
    }
    const hash = hashHeader(header)
    const block: EvmBlock = { ...header, hash, size: 0 }
    block.size = encodeRawBlock(block, rawTxs).length
    for (const call of calls) for (const log of call.logs) log.blockHash = hash
    for (const tx of txs) tx.blockHash = hash
    return { block, transactions: txs, calls }
  }

  /** The block's state overrides (precompile moves first: simulate-precompiles.ts). */
  private async applyOverrides(overrides: readonly SimAccountOverride[]): Promise<void> {
    this.precompiles.apply(overrides)
    try {
      await applyStateOverrides(this.copy.sm, overrides)
    } catch (err) {
      throw err instanceof NodeError ? new SimulateError(SimulateCode.invalidRequest, err.message) : err
    }
  }
}
