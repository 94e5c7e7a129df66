/**
 * debug_traceCall's transaction (geth `TraceCall`): geth's TransactionArgs handled as eth_call handles
 * them (call-args.ts: data/input, fee fields, the sender override; the gas cap as calls.ts), on the
 * state after a block with `stateOverrides` applied, in that block with `blockOverrides` applied. Unlike
 * eth_call it runs as a whole transaction (geth `ApplyTransactionWithEVM`): intrinsic gas is charged, the
 * sender's balance must cover gas × fee cap + value, refunds apply; nonce and block gas limit are not
 * checked. A call that pays no gas price runs with base fee 0 (geth lowers it "to avoid breaking EVM
 * invariants").
 */
import { createBlock, type Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import { toChecksumAddress } from '../../primitives/address.js'
import { applyStateOverrides, type BlockOverrides, type StateOverride } from '../calls/call-overrides.js'
import { buildTx, capCallGas, pickData, resolveFees, type CallArgs } from '../calls/call-args.js'
import type { BlockEnv } from '../executor.js'
import { intrinsicGas } from '../txs/intrinsic-gas.js'
import type { StateAt } from '../state/state-copy.js'
import type { TraceCopy, TracedTx } from './trace-copy.js'
import { TracingFailedError } from './trace-errors.js'

/** debug_traceCall's arguments after decoding. */
export interface TraceCallRequest {
  args: CallArgs
  stateOverrides: readonly StateOverride[]
  blockOverrides: BlockOverrides | undefined
}

const ZERO_HASH = new Uint8Array(32)
const ZERO_ADDRESS = new Uint8Array(20)

/** The block a call runs in: the height's header fields with the overrides. */
function overriddenEnv(env: BlockEnv, o: BlockOverrides | undefined): BlockEnv & { mixHash: Uint8Array } {
  return {
    height: o?.number !== undefined ? Number(o.number) : env.height,
    timestamp: o?.time !== undefined ? Number(o.time) : env.timestamp,
    gasLimit: o?.gasLimit ?? env.gasLimit,
    baseFee: o?.baseFee ?? env.baseFee,
    coinbase: o?.coinbase ?? env.coinbase,
    mixHash: o?.random ?? ZERO_HASH,
  }
}

function createCallBlock(env: BlockEnv & { mixHash: Uint8Array }, baseFee: bigint, common: Common): Block {
  return createBlock(
    {
      header: {
        number: BigInt(env.height),
        timestamp: BigInt(env.timestamp),
        gasLimit: env.gasLimit,
        baseFeePerGas: baseFee,
        coinbase: new Address(env.coinbase),
        mixHash: env.mixHash,
      },
    },
    { common },
  )
}

/** Applies the state overrides to `copy` and builds the transaction to trace; throws geth's errors. */
export async function prepareTracedCall(
  copy: TraceCopy,
  at: StateAt,
  req: TraceCallRequest,
  gasCap: bigint,
  common: Common,
): Promise<TracedTx> {
  const env = overriddenEnv(at.env, req.blockOverrides)
  const sm = copy.vm.stateManager
  await applyStateOverrides(sm as Parameters<typeof applyStateOverrides>[0], req.stateOverrides)
  const { args } = req
  const data = pickData(args)
  const fees = resolveFees(args, env.baseFee)
  const gas = capCallGas(args.gas, gasCap, env.gasLimit)
  const intrinsic = intrinsicGas(data, args.to === undefined, args.accessList)
  if (gas < intrinsic) throw new TracingFailedError(`intrinsic gas too low: have ${gas}, want ${intrinsic}`)
  const from = args.from ?? ZERO_ADDRESS
  const value = args.value ?? 0n
  const want = gas * fees.feeCap + value
  const have = (await sm.getAccount(new Address(from)))?.balance ?? 0n
  if (have < want)
    throw new TracingFailedError(`insufficient funds for gas * price + value: address ${toChecksumAddress(from)} have ${have} want ${want}`)
  const baseFee = fees.gasPrice === 0n ? 0n : env.baseFee
  return {
    tx: buildTx(args, data, fees, gas, new Address(from), common),
    block: createCallBlock(env, baseFee, copy.vm.common),
    info: {
      blockNumber: BigInt(env.height),
      // geth traces a call with an empty tx context: no block hash, no tx hash or index
      blockHash: ZERO_HASH,
      timestamp: BigInt(env.timestamp),
      coinbase: env.coinbase,
      baseFee,
      txIndex: undefined,
      txHash: undefined,
      from,
      to: args.to,
      input: data,
      value,
      gasLimit: gas,
      gasPrice: fees.gasPrice,
      intrinsicGas: intrinsic,
    },
    runOpts: { skipBalance: true, skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true },
  }
}
