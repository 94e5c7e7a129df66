/**
 * Filling what a transaction to sign leaves out, as geth's `TransactionArgs.setDefaults`:
 * - fees: `gasPrice` given → a legacy (or, with an access list, EIP-2930) transaction at that price;
 *   otherwise EIP-1559 (the chain always runs London+ rules, so geth's "London active" branch):
 *   `maxPriorityFeePerGas` = the suggested tip (eth_maxPriorityFeePerGas), `maxFeePerGas` = 2 × the
 *   latest base fee + tip (room for the base fee to double before the transaction is included);
 * - `value` 0, `input` empty; `chainId` the node's (another one given → geth's error);
 * - `nonce` = the pool's pending nonce (eth_getTransactionCount "pending"); a given nonce is kept, which
 *   is how a sender replaces its own pending transaction;
 * - `gas` = eth_estimateGas of the filled call. The spec's "default 90000" for eth_sendTransaction comes
 *   from geth before v1.9, when it did not estimate: a contract creation or most calls need more and would
 *   fail out of gas, so nodectl estimates as geth, Anvil and Hardhat do (docs/behaviour.md).
 */
import { UnknownBlockError } from '../../evm/errors.js'
import type { UnsignedTxFields } from '../../evm/txs/unsigned-tx.js'
import { NodeError } from '../../utils/errors.js'
import type { EthBackend, ExecutionOptions } from './backend.js'
import type { SendArgs } from './send-args.js'

/** EIP-1559 fee cap headroom: the base fee can rise 12.5% per full block, so ×2 covers about 6 full blocks (geth). */
const BASE_FEE_HEADROOM = 2n

/** Fills `args` for eth_sendTransaction / personal_sendTransaction. */
export async function fillTransaction(backend: EthBackend, args: SendArgs, execution: ExecutionOptions): Promise<UnsignedTxFields> {
  checkSetCode(args)
  const fees = await fillFees(backend, args)
  const chainId = checkChainId(backend, args)
  const input = args.input ?? new Uint8Array(0)
  if (args.to === undefined && input.length === 0) throw new NodeError('contract creation without any data provided')
  const nonce = args.nonce ?? (await backend.getPendingNonce(args.from))
  let gasLimit = args.gas
  if (gasLimit === undefined) {
    // The estimate ignores the nonce (geth skips nonce checks while estimating); a failure is the caller's answer.
    gasLimit = await backend.estimateGas({ ...args, ...fees, nonce: undefined, input }, backend.latestHeight(), execution)
  }
  return {
    chainId,
    nonce,
    gasLimit,
    to: args.to,
    value: args.value ?? 0n,
    data: input,
    accessList: args.accessList,
    authorizationList: args.authorizationList,
    ...fees,
  }
}

/**
 * eth_signTransaction: geth signs only a complete transaction (the caller submits it later, when the
 * node's defaults may no longer hold), so gas, fees and nonce must be given; the rest is defaulted.
 */
export function completeTransaction(backend: EthBackend, args: SendArgs): UnsignedTxFields {
  checkSetCode(args)
  if (args.gas === undefined) throw new NodeError('gas not specified')
  if (args.gasPrice === undefined && (args.maxPriorityFeePerGas === undefined || args.maxFeePerGas === undefined)) {
    throw new NodeError('missing gasPrice or maxFeePerGas/maxPriorityFeePerGas')
  }
  if (args.nonce === undefined) throw new NodeError('nonce not specified')
  return {
    chainId: checkChainId(backend, args),
    nonce: args.nonce,
    gasLimit: args.gas,
    to: args.to,
    value: args.value ?? 0n,
    data: args.input ?? new Uint8Array(0),
    accessList: args.accessList,
    gasPrice: args.gasPrice,
    maxFeePerGas: args.maxFeePerGas,
    maxPriorityFeePerGas: args.maxPriorityFeePerGas,
    authorizationList: args.authorizationList,
  }
}

type Fees = Pick<UnsignedTxFields, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>

/** geth `setFeeDefaults` (the codec already refused gasPrice together with the 1559 fields, and cap < tip). */
async function fillFees(backend: EthBackend, args: SendArgs): Promise<Fees> {
  if (args.gasPrice !== undefined) return { gasPrice: args.gasPrice, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }
  if (args.maxFeePerGas !== undefined && args.maxPriorityFeePerGas !== undefined) {
    return { gasPrice: undefined, maxFeePerGas: args.maxFeePerGas, maxPriorityFeePerGas: args.maxPriorityFeePerGas }
  }
  const tip = args.maxPriorityFeePerGas ?? (await backend.suggestGasTipCap())
  let maxFee = args.maxFeePerGas
  if (maxFee === undefined) {
    const head = await backend.getBlockByNumber(backend.latestHeight())
    if (head === undefined) throw new UnknownBlockError()
    maxFee = BASE_FEE_HEADROOM * head.baseFeePerGas + tip
  }
  if (maxFee < tip) throw new NodeError(`maxFeePerGas (${maxFee}) < maxPriorityFeePerGas (${tip})`)
  return { gasPrice: undefined, maxFeePerGas: maxFee, maxPriorityFeePerGas: tip }
}

/** An EIP-7702 transaction (an authorization list) has EIP-1559 fee caps and a recipient (geth's wording). */
function checkSetCode(args: SendArgs): void {
  if (args.authorizationList === undefined) return
  if (args.gasPrice !== undefined)
    throw new NodeError('both gasPrice and authorizationList specified: a set code transaction uses maxFeePerGas')
  if (args.to === undefined) throw new NodeError('set code transaction must have a destination')
}

function checkChainId(backend: EthBackend, args: SendArgs): bigint {
  if (args.chainId !== undefined && args.chainId !== backend.chainId) {
    throw new NodeError(`chainId does not match node's (have=${args.chainId}, want=${backend.chainId})`)
  }
  return backend.chainId
}
