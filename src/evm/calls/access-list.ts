/**
 * eth_createAccessList as geth's `AccessList` (internal/ethapi): run the call as a transaction with
 * the access list found so far, collect what it touched (ethereumjs `reportAccessList`, the
 * counterpart of geth's AccessListTracer), and repeat with that list until it stops changing; the
 * result is the list and the gas the last run used. Like geth, the sender, the recipient and the
 * precompiles are listed only for the storage slots they use (ethereumjs keeps them warm from the
 * start), and a failed execution is reported in `vmError`, not thrown.
 *
 * Differences from geth, the same as this node's eth_call: without a fee field the call runs at gas
 * price 0 in a block with base fee 0 (geth fills in suggested fees), and the gas defaults to the RPC
 * gas cap.
 *
 * Runs on a fresh state copy of its own (a rare request; it never disturbs the shared call copies),
 * with the EVM timeout of eth_call.
 */
import type { Common } from '@ethereumjs/common'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { Address } from '@ethereumjs/util'
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm'
import type { Database } from '../../db/database.js'
import { equalBytes, hexToBytes } from '../../primitives/hex.js'
import { buildTx, pickData, resolveFees, type CallArgs } from './call-args.js'
import type { CallOptions } from './calls.js'
import { CallArgsError, CallTimeoutError } from '../errors.js'
import { StateCopy, type StateAt } from '../state/state-copy.js'
import { createVmCopy } from '../state/state.js'
import { gethVmError } from '../vm-errors.js'
import type { EvmAccessListItem } from '../store/views.js'

/**
 * Runs before giving up on a fixed point. geth loops until the list is stable; each run can only add
 * entries, and in practice the second run confirms the first, so this bound is never reached.
 */
const MAX_RUNS = 16
const ZERO_ADDRESS = new Address(new Uint8Array(20))

export interface AccessListDeps {
  db: Database
  common: Common
  blockchain: EVMMockBlockchainInterface
  options: CallOptions
  /** Installs system contracts on the copy's VM (validator-admin.ts); default none. */
  prepareVm?: (vm: VM) => void
}

/** geth's `accessListResult` before formatting. */
export interface AccessListResult {
  accessList: EvmAccessListItem[]
  /** Gas used by the run with the final list (after refunds, as a receipt). */
  gasUsed: bigint
  /** geth's VM error text when the execution failed (revert, out of gas...), else undefined. */
  vmError: string | undefined
}

/** The access list of `args` on `state` (see the file comment). */
export async function createAccessList(deps: AccessListDeps, state: StateAt, args: CallArgs): Promise<AccessListResult> {
  const common = deps.common.copy()
  const vm = await createVmCopy(deps.db, common, deps.blockchain, state.stateRoot)
  deps.prepareVm?.(vm)
  const copy = new StateCopy(vm, state, common)
  const data = pickData(args)
  const fees = resolveFees(args, state.env.baseFee)
  const cap = deps.options.gasCap > 0n ? deps.options.gasCap : state.env.gasLimit
  const gas = args.gas === undefined || args.gas === 0n || args.gas > cap ? cap : args.gas
  const from = args.from ? new Address(args.from) : ZERO_ADDRESS
  const block = copy.block(fees.given ? state.env.baseFee : 0n)
  copy.timeoutMs = deps.options.evmTimeoutMs
  copy.deadline = deps.options.evmTimeoutMs > 0 ? performance.now() + deps.options.evmTimeoutMs : Infinity
  let list = args.accessList ?? []
  for (let run = 1; ; run++) {
    const tx = buildTx({ ...args, accessList: list }, data, fees, gas, from, common)
    let result: RunTxResult
    await copy.sm.checkpoint()
    try {
      result = await runTx(copy.vm, {
        tx,
        block,
        reportAccessList: true,
        skipNonce: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
      })
    } catch (err) {
      // The copy is dropped with this request, so its checkpoints need no balancing.
      if (err instanceof CallTimeoutError) throw err
      const msg = (err instanceof Error ? err.message : String(err)).replace(/\s*\(vm hf=.*$/s, '')
      throw new CallArgsError(`failed to apply transaction: err: ${msg}`)
    }
    await copy.sm.revert()
    const found = toAccessList(result, args.to === undefined)
    if (sameAccessList(found, list) || run >= MAX_RUNS) {
      const exception = result.execResult.exceptionError
      return { accessList: found, gasUsed: result.totalGasSpent, vmError: exception ? gethVmError(exception.error) : undefined }
    }
    list = found
  }
}

/**
 * The reported list as records. For a creation the new contract is left out unless it used storage
 * (geth excludes the created address as it excludes the recipient).
 */
function toAccessList(result: RunTxResult, creation: boolean): EvmAccessListItem[] {
  const created = creation ? result.createdAddress?.bytes : undefined
  const out: EvmAccessListItem[] = []
  for (const item of result.accessList ?? []) {
    const address = hexToBytes(item.address)
    const storageKeys = item.storageKeys.map((k) => hexToBytes(k))
    if (created && storageKeys.length === 0 && equalBytes(address, created)) continue
    out.push({ address, storageKeys })
  }
  return out
}

/** Same addresses with the same slots, in any order. */
function sameAccessList(a: readonly EvmAccessListItem[], b: readonly EvmAccessListItem[]): boolean {
  const index = (list: readonly EvmAccessListItem[]): Map<string, Set<string>> => {
    const map = new Map<string, Set<string>>()
    for (const item of list) {
      const key = Buffer.from(item.address).toString('hex')
      const slots = map.get(key) ?? new Set<string>()
      for (const k of item.storageKeys) slots.add(Buffer.from(k).toString('hex'))
      map.set(key, slots)
    }
    return map
  }
  const x = index(a)
  const y = index(b)
  if (x.size !== y.size) return false
  for (const [address, slots] of x) {
    const other = y.get(address)
    if (other === undefined || other.size !== slots.size) return false
    for (const s of slots) if (!other.has(s)) return false
  }
  return true
}
