/**
 * geth's TransactionArgs rules for eth_call and eth_estimateGas (internal/ethapi/transaction_args.go):
 * `data` vs `input`, fee fields, and the unsigned transaction estimateGas runs.
 */
import type { Common } from '@ethereumjs/common'
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { bytesToHex, equalBytes } from '../../primitives/hex.js'
import { CallArgsError } from './errors.js'
import type { EvmAccessListItem } from './views.js'

/** geth TransactionArgs, decoded. */
export interface CallArgs {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  value?: bigint
  data?: Uint8Array
  input?: Uint8Array
  nonce?: bigint
  accessList?: EvmAccessListItem[]
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

/** `input` wins; both given and different is an error (geth TransactionArgs.data). */
export function pickData(args: CallArgs): Uint8Array {
  if (args.data && args.input && !equalBytes(args.data, args.input)) {
    throw new CallArgsError(`both 'data' and 'input' are set and not equal. Please use 'input' to pass transaction call data`)
  }
  return args.input ?? args.data ?? new Uint8Array(0)
}

/** geth TransactionArgs.ToMessage fee rules for calls. */
export function resolveFees(args: CallArgs, baseFee: bigint): Fees {
  const dynamic = args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined
  if (args.gasPrice !== undefined && dynamic) throw new CallArgsError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  if (args.gasPrice !== undefined) return { gasPrice: args.gasPrice, feeCap: args.gasPrice, tip: args.gasPrice, dynamic: false, given: args.gasPrice > 0n }
  if (!dynamic) return { gasPrice: 0n, feeCap: 0n, tip: 0n, dynamic: false, given: false }
  const feeCap = args.maxFeePerGas ?? 0n
  const tip = args.maxPriorityFeePerGas ?? 0n
  if (feeCap < tip) throw new CallArgsError(`maxFeePerGas (${feeCap}) < maxPriorityFeePerGas (${tip})`)
  const given = feeCap > 0n || tip > 0n
  if (given && feeCap < baseFee) throw new CallArgsError(`max fee per gas less than block base fee: maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`)
  const gasPrice = given ? (baseFee + tip < feeCap ? baseFee + tip : feeCap) : 0n
  return { gasPrice, feeCap, tip, dynamic: true, given }
}

/** An unsigned transaction whose sender is `from` (no impersonation constructor in tx v10). */
export function buildTx(args: CallArgs, data: Uint8Array, fees: Fees, gasLimit: bigint, from: Address, common: Common): TypedTransaction {
  const base = { nonce: 0n, gasLimit, to: args.to ? new Address(args.to) : undefined, value: args.value ?? 0n, data }
  const accessList = (args.accessList ?? []).map((i) => ({ address: bytesToHex(i.address) as `0x${string}`, storageKeys: i.storageKeys.map((k) => bytesToHex(k) as `0x${string}`) }))
  const opts = { common, freeze: false }
  let tx: TypedTransaction
  if (fees.dynamic) tx = createFeeMarket1559Tx({ ...base, maxFeePerGas: fees.feeCap, maxPriorityFeePerGas: fees.tip, accessList }, opts)
  else if (accessList.length > 0) tx = createAccessList2930Tx({ ...base, gasPrice: fees.gasPrice, accessList }, opts)
  else tx = createLegacyTx({ ...base, gasPrice: fees.gasPrice }, opts)
  Object.defineProperty(tx, 'getSenderAddress', { value: () => from })
  return tx
}
