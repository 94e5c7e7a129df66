/**
 * eth_call, eth_estimateGas and state reads (account, code, storage, proofs) at a committed height.
 *
 * Each height gets one read-only VM copy at its state root (created on first use, dropped when the
 * next block commits), holding one open checkpoint so that state read by one request stays cached for
 * the next. A request runs alone on its copy inside its own checkpoint: reverted when the request
 * changed state (so no call sees another's writes), committed into the held one when it only read (so
 * the cache stays warm: about twice the balanceOf calls/s of reverting every call, measured here).
 * The copy's trie writes go to a private overlay, never to the consensus batch (`runCall` mutates
 * state, bumping the caller's nonce and committing when no checkpoint is open, so it runs under one).
 * A deadline check on the copies' jumps and calls (never on the consensus VM) aborts a call past the
 * EVM timeout; the copy is then discarded, as its checkpoints are left unbalanced.
 *
 * eth_call and eth_estimateGas at a height LevelDB already has go to the call workers when the node
 * has them (`remote`, call-workers.ts): each runs this same service on its own thread, with copies
 * of its own over the same database.
 */
import type { Block } from '@ethereumjs/block'
import type { Common, Proof } from '@ethereumjs/common'
import type { EVMMockBlockchainInterface, EVMResult } from '@ethereumjs/evm'
import { getMerkleStateProof, type MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { type Account, Address, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm'
import type { Database } from '../../db/database.js'
import { equalBytes, latin1 } from '../../primitives/hex.js'
import { NodeError } from '../../utils/errors.js'
import { buildTx, capCallGas, pickData, resolveFees, type CallArgs } from './call-args.js'
import { CallResultCache, callKey } from './call-cache.js'
import { CallArgsError, CallTimeoutError, ExecutionRevertedError, VmExecutionError } from '../errors.js'
import { TX_GAS, intrinsicGas } from '../txs/intrinsic-gas.js'
import { StateCopy, type StateAt } from '../state/state-copy.js'
import { createStateCopy, createVmCopy } from '../state/state.js'
import { decodeRevertReason, gethVmError } from '../vm-errors.js'

export type { CallArgs } from './call-args.js'
export type { StateAt } from '../state/state-copy.js'

export interface CallOptions {
  /** Gas cap of one eth_call / eth_estimateGas (json-rpc `gas-cap`); 0 = none. Default 25,000,000. */
  gasCap: bigint
  /** EVM timeout of one eth_call / eth_estimateGas in ms (json-rpc `evm-timeout`); 0 = none. Default 5,000. */
  evmTimeoutMs: number
}

export const defaultCallOptions: CallOptions = { gasCap: 25_000_000n, evmTimeoutMs: 5_000 }

export interface CallResult {
  returnValue: Uint8Array
  /** Intrinsic + execution gas (no refunds). */
  gasUsed: bigint
}

export interface AccountState {
  nonce: bigint
  balance: bigint
  codeHash: Uint8Array
  storageRoot: Uint8Array
}

export interface CallServiceDeps {
  db: Database
  common: Common
  blockchain: EVMMockBlockchainInterface
  /** Resolves a height (undefined = latest) to its state; throws UnknownBlockError when absent. */
  resolve(height: number | undefined): Promise<StateAt>
  /** Installs system contracts on each new copy's VM (validator-admin.ts); default none. */
  prepareVm?: (vm: VM) => void
  /** Runs calls and estimates on other threads (call-workers.ts); default: all here. */
  remote?: RemoteCalls
  /**
   * Called once a call or estimate has run LONG_RUN_MS (checked at its jumps and calls, as the EVM
   * timeout is): a call worker then posts the answers waiting behind it. Default none.
   */
  onLongRun?: () => void
}

/** Executes calls somewhere else; undefined when it cannot take one now (then it runs here). */
export interface RemoteCalls {
  call(args: CallArgs, state: StateAt): Promise<CallResult> | undefined
  estimateGas(args: CallArgs, state: StateAt): Promise<bigint> | undefined
}

/** Accounts remembered between two commits (the oldest are forgotten first). */
const ACCOUNT_MEMO_SIZE = 4_096
/** Historical copies kept besides the latest one (all are dropped at the next commit). */
const MAX_COPIES = 8
/** geth's estimateGas stops the binary search within this relative error (gasestimator.go). */
const ESTIMATE_ERROR_PERMILLE = 15n
/** Gas a CALL with value gives the callee for free; geth adds it to the optimistic estimate. */
const CALL_STIPEND = 2_300n
const ZERO_ADDRESS = new Address(new Uint8Array(20))
/** How long a call runs before `onLongRun` (ms): longer than a batch of ordinary calls. */
const LONG_RUN_MS = 2

export class CallService {
  private copies = new Map<number, Promise<StateCopy>>()
  private readonly results = new CallResultCache<CallResult>()
  /**
   * Accounts read at committed heights since the last commit, by `height:address`: a wallet's balance
   * and nonce polls between two blocks are answered at once, without the state copy (a committed
   * height's state never changes; the memo is dropped at each commit only to bound it).
   */
  private accounts = new Map<string, AccountState>()
  /**
   * State managers for account reads where no copy is open yet, by height: the pool reads its senders
   * after every block, and a copy's VM (most of what a copy costs) is needed only by calls.
   */
  private readers = new Map<number, Promise<{ root: Uint8Array; sm: MerkleStateManager }>>()

  constructor(
    private readonly deps: CallServiceDeps,
    private readonly opts: CallOptions = defaultCallOptions,
  ) {}

  /** Drops every state copy and remembered call (called when a block commits). */
  invalidate(): void {
    this.copies = new Map()
    this.results.clear()
    this.accounts = new Map()
    this.readers = new Map()
  }

  /** eth_call: executes `args` against the state after `height`; throws on revert or VM error. */
  async call(args: CallArgs, height?: number): Promise<CallResult> {
    const state = await this.deps.resolve(height)
    return this.results.get(callKey(state.height, args), () => this.remote(state)?.call(args, state) ?? this.callAt(args, state))
  }

  /** The call workers, when they can read `state` (its height is in LevelDB). */
  private remote(state: StateAt): RemoteCalls | undefined {
    return state.written ? this.deps.remote : undefined
  }

  /** eth_call on this thread, without the memo. */
  async callAt(args: CallArgs, state: StateAt): Promise<CallResult> {
    const copy = await this.copyAt(state)
    const data = pickData(args)
    const fees = resolveFees(args, copy.state.env.baseFee)
    const gas = capCallGas(args.gas, this.opts.gasCap, copy.state.env.gasLimit)
    const intrinsic = intrinsicGas(data, args.to === undefined, args.accessList, args.authorizationList?.length)
    if (gas < intrinsic) throw new CallArgsError(`intrinsic gas too low: have ${gas}, want ${intrinsic}`)
    const from = args.from ? new Address(args.from) : ZERO_ADDRESS
    const value = args.value ?? 0n
    const result = await this.run(copy, async () => {
      const want = gas * fees.feeCap + value
      if (want > 0n) {
        const balance = (await copy.sm.getAccount(from))?.balance ?? 0n
        if (balance < want)
          throw new VmExecutionError(`insufficient funds for gas * price + value: address ${from.toString()} have ${balance} want ${want}`)
      }
      return copy.vm.evm.runCall({
        block: copy.block(fees.given ? copy.state.env.baseFee : 0n),
        gasPrice: fees.gasPrice,
        origin: from,
        caller: from,
        to: args.to ? new Address(args.to) : undefined,
        value,
        data,
        gasLimit: gas - intrinsic,
        isStatic: false,
        // A creation derives the new address from the caller's nonce *after* the increment (ethereumjs
        // `_generateAddress` reads nonce - 1), so it must happen, as in geth; the copy reverts it.
        skipNonceIncrement: args.to !== undefined,
      })
    })
    throwOnFailure(result.execResult)
    return { returnValue: result.execResult.returnValue, gasUsed: intrinsic + result.execResult.executionGasUsed }
  }

  /**
   * eth_estimateGas, as geth's gasestimator: a plain transfer that succeeds with 21,000 gas costs that;
   * otherwise run at the upper bound (min(args.gas or block gas limit, gas cap, balance allowance when
   * a fee is set)), then an optimistic guess, then a binary search to within 1.5%.
   */
  async estimateGas(args: CallArgs, height?: number): Promise<bigint> {
    const state = await this.deps.resolve(height)
    return this.remote(state)?.estimateGas(args, state) ?? this.estimateGasAt(args, state)
  }

  /** eth_estimateGas on this thread. */
  async estimateGasAt(args: CallArgs, state: StateAt): Promise<bigint> {
    const copy = await this.copyAt(state)
    const data = pickData(args)
    const fees = resolveFees(args, copy.state.env.baseFee)
    const from = args.from ? new Address(args.from) : ZERO_ADDRESS
    const value = args.value ?? 0n
    let hi = args.gas !== undefined && args.gas >= TX_GAS ? args.gas : copy.state.env.gasLimit
    if (this.opts.gasCap > 0n && hi > this.opts.gasCap) hi = this.opts.gasCap
    return this.run(copy, async () => {
      const balance = (await copy.sm.getAccount(from))?.balance ?? 0n
      if (value > balance) throw new VmExecutionError('insufficient funds for transfer')
      if (fees.feeCap > 0n) {
        const allowance = (balance - value) / fees.feeCap
        if (hi > allowance) hi = allowance
      }
      const block = copy.block(fees.given ? copy.state.env.baseFee : 0n)
      const attempt = (gas: bigint): Promise<RunTxResult | undefined> =>
        this.tryTx(copy, block, buildTx(args, data, fees, gas, from, this.deps.common))
      // A plain transfer is tried at 21,000 first (an access list can make it cost more).
      if (args.to && data.length === 0 && hi >= TX_GAS && (await copy.sm.getCode(new Address(args.to))).length === 0) {
        const plain = await attempt(TX_GAS)
        if (plain && !plain.execResult.exceptionError) return TX_GAS
      }
      const first = await attempt(hi)
      if (!first || first.execResult.exceptionError) {
        const err = first?.execResult.exceptionError
        if (first && err && err.error !== 'out of gas') throwOnFailure(first.execResult)
        throw new VmExecutionError(`gas required exceeds allowance (${hi})`)
      }
      let lo = first.totalGasSpent - 1n
      const preRefund =
        first.execResult.executionGasUsed + intrinsicGas(data, args.to === undefined, args.accessList, args.authorizationList?.length)
      const optimistic = ((preRefund + CALL_STIPEND) * 64n) / 63n
      if (optimistic < hi) {
        const r = await attempt(optimistic)
        if (r && !r.execResult.exceptionError) hi = optimistic
        else lo = optimistic
      }
      while (lo + 1n < hi) {
        if (((hi - lo) * 1000n) / hi < ESTIMATE_ERROR_PERMILLE) break
        let mid = (hi + lo) / 2n
        if (mid > lo * 2n) mid = lo * 2n
        const r = await attempt(mid)
        if (r && !r.execResult.exceptionError) hi = mid
        else lo = mid
      }
      return hi
    })
  }

  /**
   * Nonce, balance, code hash and storage root of `address` (empty-account values when absent); at
   * once when the account was read at `height` since the last commit.
   */
  getAccount(address: Uint8Array, height?: number): AccountState | Promise<AccountState> {
    return (height !== undefined && this.accounts.get(accountKey(height, address))) || this.readAccount(address, height)
  }

  private async readAccount(address: Uint8Array, height: number | undefined): Promise<AccountState> {
    const state = await this.deps.resolve(height)
    const account = await this.getAccountAt(state, new Address(address))
    const out = account
      ? { nonce: account.nonce, balance: account.balance, codeHash: account.codeHash, storageRoot: account.storageRoot }
      : { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP }
    const accounts = this.accounts
    accounts.set(accountKey(state.height, address), out)
    if (accounts.size > ACCOUNT_MEMO_SIZE) accounts.delete(accounts.keys().next().value!)
    return out
  }

  /** An account at `state`: from the height's copy when one is open, else from a plain state manager. */
  private async getAccountAt(state: StateAt, address: Address): Promise<Account | undefined> {
    const open = this.copies.get(state.height)
    const copy = open && (await open.catch(() => undefined))
    if (copy && !copy.broken && equalBytes(copy.state.stateRoot, state.stateRoot)) return copy.exclusive(() => copy.sm.getAccount(address))
    return (await this.readerAt(state)).getAccount(address)
  }

  private async readerAt(state: StateAt): Promise<MerkleStateManager> {
    const existing = await this.readers.get(state.height)?.catch(() => undefined)
    if (existing && equalBytes(existing.root, state.stateRoot)) return existing.sm
    const created = createStateCopy(this.deps.db, this.deps.common.copy(), state.stateRoot).then((sm) => ({ root: state.stateRoot, sm }))
    this.readers.set(state.height, created)
    created.catch(() => {
      if (this.readers.get(state.height) === created) this.readers.delete(state.height)
    })
    while (this.readers.size > MAX_COPIES + 1) this.readers.delete(this.readers.keys().next().value!)
    return (await created).sm
  }

  async getCode(address: Uint8Array, height?: number): Promise<Uint8Array> {
    const copy = await this.copyAt(await this.deps.resolve(height))
    return copy.exclusive(() => copy.sm.getCode(new Address(address)))
  }

  /** The 32-byte value of storage `slot` (32 bytes) of `address`. */
  async getStorageAt(address: Uint8Array, slot: Uint8Array, height?: number): Promise<Uint8Array> {
    const copy = await this.copyAt(await this.deps.resolve(height))
    const value = await copy.exclusive(() => copy.sm.getStorage(new Address(address), slot))
    const out = new Uint8Array(32)
    out.set(value, 32 - value.length)
    return out
  }

  /** EIP-1186 account and storage proof against the height's state root. */
  async getProof(address: Uint8Array, slots: Uint8Array[], height?: number): Promise<Proof> {
    const state = await this.deps.resolve(height)
    const sm = await createStateCopy(this.deps.db, this.deps.common.copy(), state.stateRoot)
    return getMerkleStateProof(sm, new Address(address), slots)
  }

  /** Runs `fn` alone on `copy` inside a checkpoint that is reverted afterwards, with the EVM timeout. */
  private async run<T>(copy: StateCopy, fn: () => Promise<T>): Promise<T> {
    return copy.exclusive(async () => {
      if (copy.broken) throw new Error('state copy discarded')
      copy.timeoutMs = this.opts.evmTimeoutMs
      // evm-timeout "0s" means no limit (Evmos), as in access-list.ts.
      const now = performance.now()
      copy.deadline = this.opts.evmTimeoutMs > 0 ? now + this.opts.evmTimeoutMs : Infinity
      copy.onLongRun = this.deps.onLongRun
      copy.longRunAt = copy.onLongRun ? now + LONG_RUN_MS : Infinity
      copy.dirty = false
      await copy.sm.checkpoint()
      try {
        return await fn()
      } catch (err) {
        // Our own argument/result errors leave the checkpoints balanced; anything else thrown out of
        // the EVM (the timeout, an internal failure) may not.
        if (err instanceof CallTimeoutError || !(err instanceof NodeError)) this.discard(copy)
        throw err
      } finally {
        copy.deadline = Infinity
        copy.longRunAt = Infinity
        if (!copy.broken) {
          if (copy.dirty) await copy.sm.revert()
          else await copy.sm.commit()
          copy.vm.evm.journal.cleanJournal()
          copy.sm.originalStorageCache.clear()
        }
      }
    })
  }

  /** One estimateGas attempt; undefined when the gas is below the intrinsic gas. */
  private async tryTx(copy: StateCopy, block: Block, tx: TypedTransaction): Promise<RunTxResult | undefined> {
    await copy.sm.checkpoint()
    try {
      return await runTx(copy.vm, {
        tx,
        block,
        skipBalance: true,
        skipNonce: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
      })
    } catch (err) {
      if (err instanceof CallTimeoutError) throw err
      const msg = err instanceof Error ? err.message : String(err)
      if (msg.includes('INTRINSIC_GAS_TOO_LOW')) return undefined
      if (msg.includes("is less than the block's baseFeePerGas")) {
        throw new CallArgsError(
          `max fee per gas less than block base fee: address ${tx.getSenderAddress().toString()}, maxFeePerGas: ${'maxFeePerGas' in tx ? tx.maxFeePerGas : 0n}, baseFee: ${block.header.baseFeePerGas}`,
        )
      }
      // not one of runTx's up-front refusals: the EVM threw mid-execution
      this.discard(copy)
      throw new VmExecutionError(msg.replace(/\s*\(vm hf=.*$/s, ''))
    } finally {
      if (!copy.broken) await copy.sm.revert()
    }
  }

  /** Marks a copy unusable (a timed-out call left its checkpoints unbalanced); copyAt replaces it. */
  private discard(copy: StateCopy): void {
    copy.broken = true
  }

  private async copyAt(state: StateAt): Promise<StateCopy> {
    const existing = this.copies.get(state.height)
    if (existing) {
      const copy = await existing
      if (!copy.broken && equalBytes(copy.state.stateRoot, state.stateRoot)) return copy
    }
    const created = (async () => {
      const common = this.deps.common.copy()
      const vm = await createVmCopy(this.deps.db, common, this.deps.blockchain, state.stateRoot)
      this.deps.prepareVm?.(vm)
      await vm.stateManager.checkpoint()
      return new StateCopy(vm, state, common)
    })()
    this.copies.set(state.height, created)
    created.catch(() => {
      if (this.copies.get(state.height) === created) this.copies.delete(state.height)
    })
    while (this.copies.size > MAX_COPIES + 1) this.copies.delete(this.copies.keys().next().value!)
    return created
  }
}

/** The account memo's key of `address` at `height`. */
function accountKey(height: number, address: Uint8Array): string {
  return `${height}:${latin1(address)}`
}

/** Throws the geth-style error of a failed execution (revert → code 3 with data). */
function throwOnFailure(exec: EVMResult['execResult']): void {
  const err = exec.exceptionError
  if (!err) return
  if (err.error === 'revert') throw new ExecutionRevertedError(exec.returnValue, decodeRevertReason(exec.returnValue))
  throw new VmExecutionError(gethVmError(err.error))
}
