/**
 * One call of eth_simulateV1 before and after it runs (simulate.ts): the checks geth makes before a
 * simulated call, the unsigned transaction it runs as, and its result.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, KECCAK256_NULL } from '@ethereumjs/util'
import type { RunTxResult } from '@ethereumjs/vm'
import { keccak256 } from '../../crypto/index.js'
import { toChecksumAddress } from '../../primitives/address.js'
import { equalBytes } from '../../primitives/hex.js'
import { NodeError } from '../../utils/errors.js'
import { isCodeSizeUnlimited } from '../common.js'
import type { BlockEnv } from '../executor.js'
import type { EvmLog, EvmTx } from '../store/views.js'
import { intrinsicGas } from '../txs/intrinsic-gas.js'
import { MAX_INITCODE_SIZE } from '../txs/tx-admission.js'
import { decodeRevertReason, gethVmError } from '../vm-errors.js'
import { buildTx, pickData, type CallArgs } from './call-args.js'
import { SimulateCode, SimulateError } from './simulate-errors.js'

/** The specification's code of a reverted call's error (geth `revertError`). */
const REVERT_CODE = 3
/** The specification's code of a call that failed in the EVM otherwise. */
const VM_ERROR_CODE = -32015
const ZERO_ADDRESS = new Uint8Array(20)
/** Every call runs as an EIP-1559 transaction (geth `ToTransaction(DynamicFeeTxType)`). */
const DYNAMIC_FEE_TX = 2
const SET_CODE_TX = 4

/** One call's outcome (the specification's CallResultSuccess / CallResultFailure). */
export interface SimulatedCall {
  returnData: Uint8Array
  logs: EvmLog[]
  /** Gas used after refunds, as the receipt's. */
  gasUsed: bigint
  /** Gas used before refunds (the gas the call needs to succeed as it did). */
  maxUsedGas: bigint
  status: 0 | 1
  /** Set when the call failed: code 3 for a revert (with its data), -32015 otherwise. */
  error: { code: number; message: string; data?: Uint8Array } | undefined
}

/** What a call's checks read. */
export interface CallContext {
  sm: MerkleStateManager
  common: Common
  validation: boolean
  /** What is left of the gas cap; undefined = no cap. */
  budget: bigint | undefined
}

/** A call ready to run. */
export interface PreparedCall {
  tx: TypedTransaction
  view: EvmTx
  /** Pays no fee without validation: runs at base fee 0 (geth's NoBaseFee). */
  feeLess: boolean
  intrinsic: bigint
}

/**
 * The transaction of call `index` of a block and its view, after geth's checks, each a request-wide
 * error with the specification's code: the block gas limit, the fees, with `validation` the nonce,
 * the balance for gas × fee cap + value, the intrinsic gas and the init code size. The gas is what is
 * left of the block unless given, cut to `budget`.
 */
export async function prepareCall(ctx: CallContext, args: CallArgs, env: BlockEnv, gasUsed: bigint, index: number): Promise<PreparedCall> {
  const { validation, budget, sm, common } = ctx
  const from = args.from ?? ZERO_ADDRESS
  const sender = toChecksumAddress(from)
  const account = await sm.getAccount(new Address(from))
  const stateNonce = account?.nonce ?? 0n
  const nonce = args.nonce ?? stateNonce
  let gas = args.gas ?? env.gasLimit - gasUsed
  if (gasUsed + gas > env.gasLimit)
    throw new SimulateError(
      SimulateCode.blockGasLimitReached,
      `block gas limit reached: remaining: ${env.gasLimit - gasUsed}, required: ${gas}`,
    )
  if (budget !== undefined && gas > budget) gas = budget
  // geth wraps the refusals of the message's pre-checks so (simulate.go applyMessageWithEVM)
  const refused = (code: number, message: string): SimulateError => new SimulateError(code, `err: ${message} (supplied gas ${gas})`)
  const feeCap = args.gasPrice ?? args.maxFeePerGas ?? 0n
  const tip = args.gasPrice ?? args.maxPriorityFeePerGas ?? 0n
  const feeLess = !validation && feeCap === 0n && tip === 0n
  const baseFee = feeLess ? 0n : env.baseFee
  if (validation && nonce < stateNonce)
    throw refused(SimulateCode.nonceTooLow, `nonce too low: address ${sender}, tx: ${nonce} state: ${stateNonce}`)
  if (validation && nonce > stateNonce)
    throw refused(SimulateCode.nonceTooHigh, `nonce too high: address ${sender}, tx: ${nonce} state: ${stateNonce}`)
  if (tip > feeCap)
    throw refused(
      SimulateCode.invalidParams,
      `max priority fee per gas higher than max fee per gas: address ${sender}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`,
    )
  if (feeCap < baseFee)
    throw refused(
      SimulateCode.baseFeeTooLow,
      `max fee per gas less than block base fee: address ${sender}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`,
    )
  const value = args.value ?? 0n
  const balance = account?.balance ?? 0n
  const want = gas * feeCap + value
  if (balance < want)
    throw refused(
      SimulateCode.insufficientFunds,
      `insufficient funds for gas * price + value: address ${sender} have ${balance} want ${want}`,
    )
  const data = pickData(args)
  const intrinsic = intrinsicGas(data, args.to === undefined, args.accessList, args.authorizationList?.length)
  if (gas < intrinsic) throw refused(SimulateCode.intrinsicGas, `intrinsic gas too low: have ${gas}, want ${intrinsic}`)
  if (args.to === undefined && data.length > MAX_INITCODE_SIZE && !isCodeSizeUnlimited(common))
    throw refused(SimulateCode.initCodeTooLarge, `max initcode size exceeded: code size ${data.length}, limit ${MAX_INITCODE_SIZE}`)
  const gasPrice = feeCap > 0n || tip > 0n ? (baseFee + tip < feeCap ? baseFee + tip : feeCap) : 0n
  const fees = { gasPrice, feeCap, tip, dynamic: true, given: !feeLess }
  let tx: TypedTransaction
  try {
    tx = buildTx({ ...args, nonce }, data, fees, gas, new Address(from), common)
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
    chainId: common.chainId(),
    v: 0n,
    r: 0n,
    s: 0n,
    blockNumber: env.height,
    blockHash: undefined,
    transactionIndex: index,
  }
  return { tx, view, feeLess, intrinsic }
}

/**
 * geth never refuses a simulated call because its sender has code (EIP-3607 is skipped in both
 * modes: a wallet contract can be simulated as the sender). ethereumjs' runTx checks it on its first
 * read of the sender's code hash, right after it loads the sender: that one read sees no code; every
 * later one (the account written back, the EVM) sees the real code. Returns the undo for when runTx
 * ends before loading the sender.
 */
export function hideSenderCode(sm: MerkleStateManager, sender: Address): () => void {
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
export function callOutcome(result: RunTxResult, logs: EvmLog[], intrinsic: bigint): SimulatedCall {
  const exec = result.execResult
  const err = exec.exceptionError
  const gas = { gasUsed: result.totalGasSpent, maxUsedGas: intrinsic + exec.executionGasUsed }
  if (!err) return { returnData: exec.returnValue, ...gas, logs, status: 1, error: undefined }
  // geth answers no return data for a failed call (a revert's bytes are the error's data)
  const base = { returnData: new Uint8Array(0), ...gas }
  if (err.error === 'revert') {
    const reason = decodeRevertReason(exec.returnValue)
    const message = reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`
    return { ...base, logs: [], status: 0, error: { code: REVERT_CODE, message, data: exec.returnValue } }
  }
  // The specification's failure schema wants the message to start so (geth gives the bare text).
  return { ...base, logs: [], status: 0, error: { code: VM_ERROR_CODE, message: `vm execution error: ${gethVmError(err.error)}` } }
}
