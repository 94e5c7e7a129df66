/**
 * The execution-time half of geth's TransactionArgs rules for eth_call and eth_estimateGas
 * (internal/ethapi/transaction_args.go `CallDefaults`): fee defaults against the block's base fee, and the
 * unsigned transaction the call runs. The request-shape rules (`data` vs `input`, `gas` vs `gasLimit`,
 * `gasPrice` with 1559 fee fields, both fee caps given and inverted) are checked once, where the arguments
 * are decoded: api/eth/call-args.ts. Arguments reaching here already obey them.
 */
import type { Common } from '@ethereumjs/common'
import { createAccessList2930Tx, createEOACode7702Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx'
import { Address, bigIntToHex } from '@ethereumjs/util'
import { bytesToHex } from '../../primitives/hex.js'
import { SET_CODE_EIP, isCodeSizeUnlimited } from '../common.js'
import { CallArgsError } from '../errors.js'
import type { EvmAccessListItem, EvmAuthorization } from '../store/views.js'

/** geth TransactionArgs, decoded and checked by api/eth/call-args.ts (`input` is the call data). */
export interface CallArgs {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  value?: bigint
  input?: Uint8Array
  nonce?: bigint
  accessList?: EvmAccessListItem[]
  /** EIP-7702 authorizations: the call runs as a set-code transaction (a dev chain's). */
  authorizationList?: EvmAuthorization[] | undefined
}

export interface Fees {
  /** Price per gas the EVM sees (GASPRICE). */
  gasPrice: bigint
  feeCap: bigint
  tip: bigint
  dynamic: boolean
  /** Whether any fee field was given (else the call runs with base fee 0). */
  given: boolean
}

/** The call data: `input`, or none (geth TransactionArgs.data). */
export function pickData(args: CallArgs): Uint8Array {
  return args.input ?? new Uint8Array(0)
}

/**
 * geth TransactionArgs.CallDefaults/ToMessage fee rules for calls. `gasPrice` never comes with the 1559
 * fields (the decoder refuses it); a missing `maxFeePerGas` defaults to 0, which geth then checks against
 * the tip, so that comparison stays here.
 */
export function resolveFees(args: CallArgs, baseFee: bigint): Fees {
  const dynamic = args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined
  if (args.gasPrice !== undefined)
    return { gasPrice: args.gasPrice, feeCap: args.gasPrice, tip: args.gasPrice, dynamic: false, given: args.gasPrice > 0n }
  if (!dynamic) return { gasPrice: 0n, feeCap: 0n, tip: 0n, dynamic: false, given: false }
  const feeCap = args.maxFeePerGas ?? 0n
  const tip = args.maxPriorityFeePerGas ?? 0n
  if (feeCap < tip) throw new CallArgsError(`maxFeePerGas (${feeCap}) < maxPriorityFeePerGas (${tip})`)
  const given = feeCap > 0n || tip > 0n
  if (given && feeCap < baseFee)
    throw new CallArgsError(`max fee per gas less than block base fee: maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`)
  const gasPrice = given ? (baseFee + tip < feeCap ? baseFee + tip : feeCap) : 0n
  return { gasPrice, feeCap, tip, dynamic: true, given }
}

/** An unsigned transaction whose sender is `from` (no impersonation constructor in tx v10). */
export function buildTx(args: CallArgs, data: Uint8Array, fees: Fees, gasLimit: bigint, from: Address, common: Common): TypedTransaction {
  const base = { nonce: args.nonce ?? 0n, gasLimit, to: args.to ? new Address(args.to) : undefined, value: args.value ?? 0n, data }
  const accessList = (args.accessList ?? []).map((i) => ({
    address: bytesToHex(i.address) as `0x${string}`,
    storageKeys: i.storageKeys.map((k) => bytesToHex(k) as `0x${string}`),
  }))
  const opts = { common, freeze: false, allowUnlimitedInitCodeSize: isCodeSizeUnlimited(common) }
  let tx: TypedTransaction
  if (args.authorizationList !== undefined) tx = buildSetCodeTx(args.authorizationList, { ...base, accessList }, fees, opts)
  else if (fees.dynamic)
    tx = createFeeMarket1559Tx({ ...base, maxFeePerGas: fees.feeCap, maxPriorityFeePerGas: fees.tip, accessList }, opts)
  else if (accessList.length > 0) tx = createAccessList2930Tx({ ...base, gasPrice: fees.gasPrice, accessList }, opts)
  else tx = createLegacyTx({ ...base, gasPrice: fees.gasPrice }, opts)
  Object.defineProperty(tx, 'getSenderAddress', { value: () => from })
  return tx
}

/** A set-code call (EIP-7702): refused where the chain does not run it, and without a recipient, as geth. */
function buildSetCodeTx(
  authorizations: readonly EvmAuthorization[],
  fields: {
    nonce: bigint
    gasLimit: bigint
    to: Address | undefined
    value: bigint
    data: Uint8Array
    accessList: { address: `0x${string}`; storageKeys: `0x${string}`[] }[]
  },
  fees: Fees,
  opts: { common: Common; freeze: boolean; allowUnlimitedInitCodeSize: boolean },
): TypedTransaction {
  if (!opts.common.isActivatedEIP(SET_CODE_EIP))
    throw new CallArgsError('transaction type not supported: set-code transactions (EIP-7702) are not active (Cancun rules)')
  if (fields.to === undefined) throw new CallArgsError('set code transaction must not be a create transaction')
  const authorizationList = authorizations.map((a) => ({
    chainId: bigIntToHex(a.chainId),
    address: bytesToHex(a.address) as `0x${string}`,
    nonce: bigIntToHex(a.nonce),
    yParity: bigIntToHex(a.yParity),
    r: bigIntToHex(a.r),
    s: bigIntToHex(a.s),
  }))
  return createEOACode7702Tx({ ...fields, maxFeePerGas: fees.feeCap, maxPriorityFeePerGas: fees.tip, authorizationList }, opts)
}

/**
 * The gas of a simulated call (geth `CallDefaults`): the caller's, at most `gasCap`; without one, the
 * cap, or the block gas limit when `gasCap` is 0 (no cap). eth_call and debug_traceCall share it.
 */
export function capCallGas(requested: bigint | undefined, gasCap: bigint, blockGasLimit: bigint): bigint {
  if (requested === undefined || requested === 0n) return gasCap > 0n ? gasCap : blockGasLimit
  return gasCap > 0n && requested > gasCap ? gasCap : requested
}
