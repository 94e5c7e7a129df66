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
 *   fee fields as given (0 otherwise). Checks before it runs, each a request-wide error with the
 *   specification's code: block gas limit, intrinsic gas, init code size, the sender's balance for
 *   gas × fee cap + value; with `validation` also the nonce and the fee cap against the base fee
 *   (without it a call paying no fee runs in a block with base fee 0, as geth's NoBaseFee). A call
 *   that fails in the EVM (revert, out of gas) is that call's result, not an error.
 * - Bounds: at most MAX_SIMULATED_BLOCKS blocks; all calls together use at most the RPC gas cap (each
 *   call's gas is cut to what is left of it, as geth's gas pool); the whole request runs within the
 *   EVM timeout.
 *
 * It runs on a fresh state copy of its own on the calling thread, like eth_createAccessList: the
 * request writes state across calls and blocks, which the shared call copies must never see.
 */
import type { Common } from '@ethereumjs/common'
import type { EVM, EVMMockBlockchainInterface } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Address, KECCAK256_NULL } from '@ethereumjs/util'
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm'
import { keccak256 } from '../../crypto/index.js'
import type { Database } from '../../db/database.js'
import { toChecksumAddress } from '../../primitives/address.js'
import { equalBytes } from '../../primitives/hex.js'
import { isCodeSizeUnlimited } from '../common.js'
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
import { MAX_INITCODE_SIZE } from '../txs/tx-admission.js'
import { intrinsicGas } from '../txs/intrinsic-gas.js'
import { decodeRevertReason, gethVmError } from '../vm-errors.js'
import { buildTx, pickData, type CallArgs } from './call-args.js'
import { applyStateOverrides } from './call-overrides.js'
import type { CallOptions } from './calls.js'
import { planBlocks, type PlannedBlock, type SimAccountOverride, type SimulateRequest } from './simulate-chain.js'
import { SimulateCode, SimulateError } from './simulate-errors.js'
import { SimulatedLogs } from './simulate-logs.js'

export type { SimAccountOverride, SimBlockInput, SimulateRequest } from './simulate-chain.js'

/** The specification's code of a reverted call's error (geth `revertError`). */
const REVERT_CODE = 3
/** The specification's code of a call that failed in the EVM otherwise. */
const VM_ERROR_CODE = -32015
const ZERO_ADDRESS = new Uint8Array(20)
const ZERO_HASH = new Uint8Array(32)
/** Every call runs as an EIP-1559 transaction (geth `ToTransaction(DynamicFeeTxType)`). */
const DYNAMIC_FEE_TX = 2
const SET_CODE_TX = 4

/** One call's outcome (the specification's CallResultSuccess / CallResultFailure). */
export interface SimulatedCall {
  returnData: Uint8Array
  logs: EvmLog[]
  gasUsed: bigint
  status: 0 | 1
  /** Set when the call failed: code 3 for a revert (with its data), -32015 otherwise. */
  error: { code: number; message: string; data?: Uint8Array } | undefined
}

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
  private readonly precompiles: Map<string, unknown>
  private readonly original: Map<string, unknown>
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
    this.precompiles = evm.precompiles as Map<string, unknown>
    this.original = new Map(this.precompiles)
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
      const { tx, view, feeLess } = await this.prepareCall(args, env, gasUsed, index)
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
      calls.push(callOutcome(result, callLogs))
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

  /**
   * The block's state overrides, after its precompiles are reset to the chain's: moves first (each
   * checked as geth does), then balances, nonces, code and storage; an overridden precompile address
   * stops being a precompile.
   */
  private async applyOverrides(overrides: readonly SimAccountOverride[]): Promise<void> {
    const precompiles = this.precompiles
    precompiles.clear()
    for (const [key, fn] of this.original) precompiles.set(key, fn)
    const keyOf = (address: Uint8Array): string => Buffer.from(address).toString('hex')
    const overridden = new Set(overrides.map((o) => keyOf(o.address)))
    const moved = new Map<string, unknown>()
    for (const o of overrides) {
      const from = keyOf(o.address)
      const fn = this.original.get(from)
      if (o.movePrecompileToAddress !== undefined) {
        const to = keyOf(o.movePrecompileToAddress)
        if (to === from)
          throw new SimulateError(SimulateCode.precompileSelfReference, `account ${toChecksumAddress(o.address)} is moved onto itself`)
        if (fn === undefined)
          throw new SimulateError(SimulateCode.invalidRequest, `account ${toChecksumAddress(o.address)} is not a precompile`)
        if (overridden.has(to) || moved.has(to))
          throw new SimulateError(
            SimulateCode.precompileDuplicateTarget,
            `account ${toChecksumAddress(o.movePrecompileToAddress)} is already overridden`,
          )
        moved.set(to, fn)
      }
      if (fn !== undefined) precompiles.delete(from)
    }
    for (const [to, fn] of moved) precompiles.set(to, fn)
    try {
      await applyStateOverrides(this.copy.sm, overrides)
    } catch (err) {
      throw err instanceof NodeError ? new SimulateError(SimulateCode.invalidRequest, err.message) : err
    }
  }

  /** The transaction of call `index` and its view, after geth's checks (see the file comment). */
  private async prepareCall(
    args: CallArgs,
    env: BlockEnv,
    gasUsed: bigint,
    index: number,
  ): Promise<{ tx: TypedTransaction; view: EvmTx; feeLess: boolean }> {
    const validation = this.request.validation
    const from = args.from ?? ZERO_ADDRESS
    const sender = toChecksumAddress(from)
    const account = await this.copy.sm.getAccount(new Address(from))
    const stateNonce = account?.nonce ?? 0n
    const nonce = args.nonce ?? stateNonce
    let gas = args.gas ?? env.gasLimit - gasUsed
    if (gasUsed + gas > env.gasLimit)
      throw new SimulateError(SimulateCode.blockGasLimitReached, `block gas limit reached: ${gasUsed} >= ${env.gasLimit}`)
    if (this.budget !== undefined && gas > this.budget) gas = this.budget
    const feeCap = args.gasPrice ?? args.maxFeePerGas ?? 0n
    const tip = args.gasPrice ?? args.maxPriorityFeePerGas ?? 0n
    const feeLess = !validation && feeCap === 0n && tip === 0n
    const baseFee = feeLess ? 0n : env.baseFee
    if (validation && nonce < stateNonce)
      throw new SimulateError(SimulateCode.nonceTooLow, `nonce too low: address ${sender}, tx: ${nonce} state: ${stateNonce}`)
    if (validation && nonce > stateNonce)
      throw new SimulateError(SimulateCode.nonceTooHigh, `nonce too high: address ${sender}, tx: ${nonce} state: ${stateNonce}`)
    if (tip > feeCap)
      throw new SimulateError(
        SimulateCode.invalidParams,
        `max priority fee per gas higher than max fee per gas: address ${sender}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`,
      )
    if (feeCap < baseFee)
      throw new SimulateError(
        SimulateCode.baseFeeTooLow,
        `max fee per gas less than block base fee: address ${sender}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`,
      )
    const value = args.value ?? 0n
    const balance = account?.balance ?? 0n
    const want = gas * feeCap + value
    if (balance < want)
      throw new SimulateError(
        SimulateCode.insufficientFunds,
        `insufficient funds for gas * price + value: address ${sender} have ${balance} want ${want}`,
      )
    const data = pickData(args)
    const intrinsic = intrinsicGas(data, args.to === undefined, args.accessList, args.authorizationList?.length)
    if (gas < intrinsic) throw new SimulateError(SimulateCode.intrinsicGas, `intrinsic gas too low: have ${gas}, want ${intrinsic}`)
    if (args.to === undefined && data.length > MAX_INITCODE_SIZE && !isCodeSizeUnlimited(this.copy.vm.common))
      throw new SimulateError(
        SimulateCode.initCodeTooLarge,
        `max initcode size exceeded: code size ${data.length}, limit ${MAX_INITCODE_SIZE}`,
      )
    const gasPrice = feeCap > 0n || tip > 0n ? (baseFee + tip < feeCap ? baseFee + tip : feeCap) : 0n
    const fees = { gasPrice, feeCap, tip, dynamic: true, given: !feeLess }
    let tx: TypedTransaction
    try {
      tx = buildTx({ ...args, nonce }, data, fees, gas, new Address(from), this.copy.vm.common)
    } catch (err) {
      throw err instanceof NodeError ? new SimulateError(SimulateCode.invalidParams, err.message) : err
    }
    const view: EvmTx = {
      hash: keccak256(tx.serialize()),
      type: args.authorizationList !== undefined ? SET_CODE_TX : DYNAMIC_FEE_TX,
      from,
      to: args.to,
      nonce,
      gas,
      value,
      input: data,
      gasPrice,
      maxFeePerGas: feeCap,
      maxPriorityFeePerGas: tip,
      accessList: args.accessList ?? [],
      authorizationList: args.authorizationList,
      chainId: this.copy.vm.common.chainId(),
      v: 0n,
      r: 0n,
      s: 0n,
      blockNumber: env.height,
      blockHash: undefined,
      transactionIndex: index,
    }
    return { tx, view, feeLess }
  }
}

/**
 * geth never refuses a simulated call because its sender has code (EIP-3607 is skipped in both
 * modes: a wallet contract can be simulated as the sender). ethereumjs' runTx checks it on its first
 * read of the sender's code hash, right after it loads the sender: that one read sees no code; every
 * later one (the account written back, the EVM) sees the real code. Returns the undo for when runTx
 * ends before loading the sender.
 */
function hideSenderCode(sm: MerkleStateManager, sender: Address): () => void {
  const getAccount = sm.getAccount
  const restore = (): void => {
    sm.getAccount = getAccount
  }
  sm.getAccount = async (address: Address) => {
    const account = await getAccount.call(sm, address)
    if (!address.equals(sender)) return account
    restore()
    if (account === undefined || equalBytes(account.codeHash, KECCAK256_NULL)) return account
    let hidden = true
    return new Proxy(account, {
      get(target, prop) {
        if (prop === 'codeHash' && hidden) {
          hidden = false
          return KECCAK256_NULL
        }
        return Reflect.get(target, prop, target)
      },
    })
  }
  return restore
}

/** A call's result: success, or its revert / VM error (geth's texts). */
function callOutcome(result: RunTxResult, logs: EvmLog[]): SimulatedCall {
  const exec = result.execResult
  const err = exec.exceptionError
  const base = { returnData: exec.returnValue, gasUsed: result.totalGasSpent }
  if (!err) return { ...base, logs, status: 1, error: undefined }
  if (err.error === 'revert') {
    const reason = decodeRevertReason(exec.returnValue)
    const message = reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`
    return { ...base, logs: [], status: 0, error: { code: REVERT_CODE, message, data: exec.returnValue } }
  }
  // The specification's failure schema wants the message to start so (geth gives the bare text).
  return { ...base, logs: [], status: 0, error: { code: VM_ERROR_CODE, message: `vm execution error: ${gethVmError(err.error)}` } }
}
