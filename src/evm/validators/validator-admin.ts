/**
 * The validator-admin system contract: a precompile at 0x…0800 with one function,
 * `setValidator(bytes32 ed25519PubKey, uint64 power)` (power 0 removes), callable only by the
 * genesis `app_state.evm.validator_admin` account (the first dev account with `--dev`). A successful
 * call records a validator update for the executing block; FinalizeBlock returns the block's updates
 * (last one per key) and consensus applies them from height H+2, as CometBFT does.
 *
 * Calling rules, each a revert with a reason (Solidity `Error(string)`):
 * - only a transaction's top-level call (depth 0, so the call's success is the transaction's success
 *   and a reverted transaction never records an update; a contract cannot relay it, not even by
 *   DELEGATECALL from the admin's own transaction);
 * - the caller must be the validator admin; no value; never a static call;
 * - the update must pass CometBFT's UpdateWithChangeSet against the application's copy of the set
 *   (validator-registry.ts): the set may never become empty, a removed key must be in the set, the
 *   total power stays ≤ MaxTotalVotingPower.
 *
 * Gas: a fixed SET_VALIDATOR_GAS on every call that gets past the input decoding, successful or
 * not (malformed input reverts with the same charge).
 */
import { EVMError, type ExecResult, type PrecompileInput } from '@ethereumjs/evm'
import { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { keccak256 } from '../../crypto/index.js'
import { bytesToBigint, concatBytes, equalBytes, hexToBytes, utf8ToBytes, bigintToBytes } from '../../primitives/hex.js'
import { MAX_TOTAL_VOTING_POWER } from '../../comet/types.js'
import { addCustomPrecompile, wrapExecuteCall } from '../state/ethereumjs-patches.js'
import type { ValidatorUpdateSink } from './validator-registry.js'

/** Address of the validator-admin system contract. */
export const VALIDATOR_ADMIN_ADDRESS = hexToBytes('0x0000000000000000000000000000000000000800')
/** `keccak256("setValidator(bytes32,uint64)")[0:4]`. */
export const SET_VALIDATOR_SELECTOR = keccak256(utf8ToBytes('setValidator(bytes32,uint64)')).slice(0, 4)
/**
 * Gas of one setValidator call. A validator change is rare, admin-only and costs every node a
 * validator-set update and a stored record, so it is priced like two fresh SSTOREs (2 × 22,100,
 * EIP-2929 cold) plus overhead: 50,000, well above anything a spammer would want to pay for nothing.
 */
export const SET_VALIDATOR_GAS = 50_000n
/** Calldata size: selector + two 32-byte ABI words. */
const CALLDATA_SIZE = 4 + 32 + 32
/** `Error(string)` selector of Solidity revert reasons. */
const ERROR_SELECTOR = hexToBytes('0x08c379a0')
const UINT64_MAX = (1n << 64n) - 1n

/** What the precompile reads about the call being made (the EVM message). */
export interface CallFrame {
  caller: Uint8Array
  value: bigint
  depth: number
  isStatic: boolean
  delegatecall: boolean
}

/** The decoded arguments of setValidator. */
export interface SetValidatorCall {
  pubKey: Uint8Array
  power: bigint
}

/** ABI-encodes a setValidator call (for clients and tests). */
export function encodeSetValidator(pubKey: Uint8Array, power: bigint): Uint8Array {
  if (pubKey.length !== 32) throw new Error(`ed25519 public key must be 32 bytes, got ${pubKey.length}`)
  if (power < 0n || power > UINT64_MAX) throw new Error(`power must fit a uint64, got ${power}`)
  return concatBytes(SET_VALIDATOR_SELECTOR, pubKey, bigintToBytes(power, 32))
}

/** Decodes setValidator calldata; a string says why it is malformed. */
export function decodeSetValidator(data: Uint8Array): SetValidatorCall | string {
  if (data.length < 4 || !equalBytes(data.subarray(0, 4), SET_VALIDATOR_SELECTOR)) return 'unknown function selector'
  if (data.length !== CALLDATA_SIZE) return `invalid calldata length ${data.length}, want ${CALLDATA_SIZE}`
  const pubKey = data.slice(4, 36)
  const powerWord = data.subarray(36, 68)
  if (powerWord.subarray(0, 24).some((b) => b !== 0)) return 'power does not fit a uint64'
  return { pubKey, power: bytesToBigint(powerWord) }
}

/** ABI `Error(string)` revert data. */
export function encodeRevertReason(reason: string): Uint8Array {
  const text = utf8ToBytes(reason)
  const padded = new Uint8Array(Math.ceil(text.length / 32) * 32)
  padded.set(text)
  return concatBytes(ERROR_SELECTOR, bigintToBytes(32n, 32), bigintToBytes(BigInt(text.length), 32), padded)
}

/**
 * The precompile's logic, independent of the EVM plumbing: checks the frame and the input, then
 * hands the update to `sink`. Returns the revert reason, or undefined on success.
 */
export function runSetValidator(
  admin: Uint8Array | undefined,
  frame: CallFrame,
  data: Uint8Array,
  sink: ValidatorUpdateSink,
): string | undefined {
  if (frame.isStatic) return 'setValidator cannot be called in a static context'
  if (frame.depth !== 0 || frame.delegatecall) return 'setValidator must be called directly by a transaction'
  if (admin === undefined || !equalBytes(frame.caller, admin)) return 'caller is not the validator admin'
  if (frame.value !== 0n) return 'setValidator does not accept value'
  const call = decodeSetValidator(data)
  if (typeof call === 'string') return call
  if (call.pubKey.every((b) => b === 0)) return 'invalid ed25519 public key: all zero'
  if (call.power > MAX_TOTAL_VOTING_POWER) return `power ${call.power} exceeds the maximum total voting power ${MAX_TOTAL_VOTING_POWER}`
  return sink.propose({ pubKey: call.pubKey, power: call.power })
}

/** The EVM plumbing of one VM: the message of the call in progress. */
interface MessageLike {
  caller: Address
  value: bigint
  depth: number
  isStatic: boolean
  delegatecall: boolean
  codeAddress: Address
}

/**
 * Prepares the read-only VMs (eth_call, estimateGas, access lists, traces): the precompile checks
 * updates against `registry`'s committed set and records none.
 */
export function readOnlyValidatorAdmin(admin: Uint8Array | undefined, registry: { checkOnly(): ValidatorUpdateSink }): (vm: VM) => void {
  return (vm) => installValidatorAdmin(vm, admin, registry.checkOnly())
}

/**
 * Installs the precompile on `vm` (the consensus VM or an RPC copy). `sink` receives the updates:
 * the registry for the consensus VM, a checking-only sink for eth_call / estimateGas copies.
 *
 * ethereumjs passes a precompile only its calldata and gas, so `_executeCall` (called with each
 * message about to run) is wrapped to remember the message addressed to this contract; the EVM runs
 * one call at a time, so it is still the current one when the precompile runs.
 */
export function installValidatorAdmin(vm: VM, admin: Uint8Array | undefined, sink: ValidatorUpdateSink): void {
  let current: MessageLike | undefined
  const precompile = (input: PrecompileInput): ExecResult => {
    const message = current
    current = undefined
    if (input.gasLimit < SET_VALIDATOR_GAS)
      return {
        returnValue: new Uint8Array(0),
        executionGasUsed: input.gasLimit,
        exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
      }
    const frame: CallFrame = message
      ? {
          caller: message.caller.bytes,
          value: message.value,
          depth: message.depth,
          isStatic: message.isStatic,
          delegatecall: message.delegatecall,
        }
      : { caller: new Uint8Array(20), value: 0n, depth: -1, isStatic: false, delegatecall: false }
    const reason = runSetValidator(admin, frame, input.data, sink)
    if (reason === undefined) return { returnValue: new Uint8Array(0), executionGasUsed: SET_VALIDATOR_GAS }
    return {
      returnValue: encodeRevertReason(reason),
      executionGasUsed: SET_VALIDATOR_GAS,
      exceptionError: new EVMError(EVMError.errorMessages.REVERT),
    }
  }
  addCustomPrecompile(vm.evm, { address: new Address(VALIDATOR_ADMIN_ADDRESS), function: precompile })
  wrapExecuteCall<MessageLike>(vm.evm, (message) => {
    if (equalBytes(message.codeAddress.bytes, VALIDATOR_ADMIN_ADDRESS)) current = message
  })
}
