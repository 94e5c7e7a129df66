/**
 * How a development chain's block applies the dev operations it opens with (ops.ts): header
 * operations shape the block's header (timestamp, base fee, coinbase, PREVRANDAO, gas limit) before
 * anything runs; the others become the block's first items, run in order before its transactions:
 * a set changes the state (no receipt, no place in the EVM view, as a system change), an impersonated
 * transaction runs as any transaction with the sender the operation names.
 *
 * The EVM timestamp of a dev block is the consensus time (s) plus the chain's time offset, never
 * earlier than its parent's; `nextTimestamp` fixes it and moves the offset so later blocks continue
 * from it.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address } from '@ethereumjs/util'
import type { BlockEnv, BlockItem, StateChange } from '../executor.js'
import { TxDecodeError } from '../txs/tx.js'
import type { DevSettings } from './dev-settings.js'
import { decodeImpersonatedTx } from './impersonated-tx.js'
import { decodeDevOp, type DevOp } from './ops.js'

export interface DevBlockInput {
  /** The encoded dev operations the block opens with, in order. */
  ops: readonly Uint8Array[]
  /** The header the block has without operations (timestamp = consensus time, s). */
  env: BlockEnv
  /** The parent block's EVM timestamp. */
  parentTimestamp: number
  /** The settings in force before the block. */
  settings: DevSettings
  common: Common
}

export interface DevBlockPlan {
  env: BlockEnv
  /** The settings in force from this block on. */
  settings: DevSettings
  /** One item per operation, in order: a state change, an impersonated transaction, or the decoding error. */
  items: BlockItem[]
}

/** A header operation's item: it took effect in the header. */
const HEADER_CHANGE: StateChange = { applyTo: async () => {} }

export function planDevBlock(input: DevBlockInput): DevBlockPlan {
  const decoded: (DevOp | Error)[] = input.ops.map((raw) => {
    try {
      return decodeDevOp(raw)
    } catch (err) {
      return new TxDecodeError(err instanceof Error ? err.message : String(err))
    }
  })
  const consensusTime = BigInt(input.env.timestamp)
  let { timeOffset, coinbase, gasLimit } = input.settings
  let timestamp: bigint | undefined
  let baseFee: bigint | undefined
  let mixHash: Uint8Array | undefined
  for (const op of decoded) {
    if (op instanceof Error) continue
    if (op.kind === 'nextTimestamp') timestamp = op.timestamp
    else if (op.kind === 'increaseTime') timeOffset += op.seconds
    else if (op.kind === 'setTime') timeOffset = op.timestamp - consensusTime
    else if (op.kind === 'nextBaseFee') baseFee = op.baseFee
    else if (op.kind === 'coinbase') coinbase = op.address
    else if (op.kind === 'prevRandao') mixHash = op.value
    else if (op.kind === 'gasLimit') gasLimit = op.gasLimit
  }
  if (timestamp !== undefined) timeOffset = timestamp - consensusTime
  let evmTime = consensusTime + timeOffset
  // Strictly after the parent, as an Ethereum header must be (and Anvil and Hardhat make them): a run of
  // blocks within one second of consensus time gets one second each.
  if (evmTime <= BigInt(input.parentTimestamp)) evmTime = BigInt(input.parentTimestamp) + 1n
  const env: BlockEnv = {
    height: input.env.height,
    timestamp: Number(evmTime),
    gasLimit: gasLimit ?? input.env.gasLimit,
    baseFee: baseFee ?? input.env.baseFee,
    coinbase: coinbase ?? input.env.coinbase,
    ...(mixHash ? { mixHash } : {}),
  }
  const items = decoded.map((op, i): BlockItem => {
    if (op instanceof Error) return op
    if (op.kind === 'tx') {
      try {
        return decodeImpersonatedTx(op.from, op.raw, input.ops[i]!, input.common)
      } catch (err) {
        return err instanceof Error ? err : new TxDecodeError(String(err))
      }
    }
    if (op.kind === 'setBalance' || op.kind === 'setNonce' || op.kind === 'setCode' || op.kind === 'setStorageAt') {
      return { applyTo: (sm) => applyStateOp(sm, op) }
    }
    return HEADER_CHANGE
  })
  return { env, settings: { timeOffset, coinbase, gasLimit }, items }
}

/** A state change of a block and the number of the block's EVM transactions that ran before it. */
export interface PlacedStateChange {
  before: number
  change: StateChange
}

/**
 * The state changes a dev block's operations make, placed among its EVM transactions (what a trace
 * re-executes): `executed` says whether an impersonated transaction ran (has its place in the EVM view).
 */
export function placeStateChanges(ops: readonly Uint8Array[], executed: (raw: Uint8Array) => boolean): PlacedStateChange[] {
  const placed: PlacedStateChange[] = []
  let before = 0
  for (const raw of ops) {
    const op = decodeDevOp(raw)
    if (op.kind === 'tx') {
      if (executed(op.raw)) before++
    } else if (op.kind === 'setBalance' || op.kind === 'setNonce' || op.kind === 'setCode' || op.kind === 'setStorageAt') {
      placed.push({ before, change: { applyTo: (sm) => applyStateOp(sm, op) } })
    }
  }
  return placed
}

type StateOp = Extract<DevOp, { kind: 'setBalance' | 'setNonce' | 'setCode' | 'setStorageAt' }>

async function applyStateOp(sm: MerkleStateManager, op: StateOp): Promise<void> {
  const address = new Address(op.address)
  const account = (await sm.getAccount(address)) ?? new Account()
  if (op.kind === 'setBalance') account.balance = op.balance
  if (op.kind === 'setNonce') account.nonce = op.nonce
  await sm.putAccount(address, account)
  if (op.kind === 'setCode') await sm.putCode(address, op.code)
  if (op.kind === 'setStorageAt') await sm.putStorage(address, op.slot, op.value)
}
