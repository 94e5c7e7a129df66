/**
 * The dev methods that change state (each a block of its own) and the next block's header (queued,
 * answered at once), under their Anvil names and their Hardhat and Ganache aliases, with each
 * client's answer: Anvil's sets answer `null`, Hardhat's `true`.
 * - anvil_setBalance / hardhat_setBalance(address, wei)
 * - anvil_setCode / hardhat_setCode(address, code)
 * - anvil_setNonce / evm_setAccountNonce(address, nonce): any nonce, lower ones too (as Anvil);
 *   hardhat_setNonce refuses a nonce below the account's (as Hardhat)
 * - anvil_setStorageAt / hardhat_setStorageAt(address, slot, value): the value exactly 32 bytes
 * - evm_setNextBlockTimestamp / anvil_setNextBlockTimestamp(ts): null
 * - evm_increaseTime / anvil_increaseTime(seconds): the total offset (s), a JSON number, as Anvil
 * - evm_setTime / anvil_setTime(ts): the total offset (s)
 * - anvil_setNextBlockBaseFeePerGas / hardhat_setNextBlockBaseFeePerGas(wei)
 * - anvil_setCoinbase / hardhat_setCoinbase(address)
 * - hardhat_setPrevRandao(32 bytes): true
 * - evm_setBlockGasLimit / anvil_setBlockGasLimit(gas): true
 * - anvil_setMinGasPrice / hardhat_setMinGasPrice: refused as both refuse it on an EIP-1559 chain
 * - anvil_dumpState / hardhat_dumpState: the state as a hex blob (gzip of Anvil's JSON shape)
 * - anvil_loadState / hardhat_loadState(blob): merged into the state as a block of sets; true
 */
import { address, data, hash, type Codec } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodDef, type MethodTable } from '../../rpc/method-table.js'
import { invalidParamsError } from '../../rpc/rpc-errors.js'
import { bytesToHex } from '../../primitives/hex.js'
import type { DevHeaderBackend, DevStateBackend } from './state-backend.js'
import { looseUint256, looseUint64, storageSlot } from './state-codecs.js'

/** 32 bytes exactly: Hardhat refuses any other length of a storage value. */
const word: Codec<Uint8Array> = hash

/** The same handler under each name, answering `null` under `anvil_` and `evm_` names and `true` under `hardhat_` ones. */
function aliases<T extends unknown[]>(names: string[], params: { [K in keyof T]: Codec<T[K]> }, run: (...args: T) => unknown): MethodDef[] {
  return names.map((name) =>
    defineMethod(
      name,
      params.map((c) => required(c)),
      async (args) => {
        await run(...(args as T))
        return name.startsWith('hardhat_') || name === 'evm_setAccountNonce' ? true : null
      },
    ),
  )
}

export function createDevStateMethods(state: DevStateBackend, header: DevHeaderBackend): MethodTable {
  return [
    ...aliases(['anvil_setBalance', 'hardhat_setBalance'], [address, looseUint256], (a: Uint8Array, wei: bigint) =>
      state.setBalance(a, wei),
    ),
    ...aliases(['anvil_setCode', 'hardhat_setCode'], [address, data], (a: Uint8Array, code: Uint8Array) => state.setCode(a, code)),
    ...aliases(['anvil_setNonce', 'evm_setAccountNonce'], [address, looseUint64], (a: Uint8Array, n: bigint) =>
      state.setNonce(a, n, 'any'),
    ),
    ...aliases(['hardhat_setNonce'], [address, looseUint64], (a: Uint8Array, n: bigint) => state.setNonce(a, n, 'notLower')),
    ...aliases(
      ['anvil_setStorageAt', 'hardhat_setStorageAt'],
      [address, storageSlot, word],
      (a: Uint8Array, s: Uint8Array, v: Uint8Array) => state.setStorageAt(a, s, v),
    ),
    ...aliases(['evm_setNextBlockTimestamp', 'anvil_setNextBlockTimestamp'], [looseUint64], (ts: bigint) => header.setNextTimestamp(ts)),
    ...['evm_increaseTime', 'anvil_increaseTime'].map((name) =>
      defineMethod(name, [required(looseUint64)], ([seconds]) => Number(header.increaseTime(seconds))),
    ),
    ...['evm_setTime', 'anvil_setTime'].map((name) => defineMethod(name, [required(looseUint64)], ([ts]) => Number(header.setTime(ts)))),
    ...aliases(['anvil_setNextBlockBaseFeePerGas', 'hardhat_setNextBlockBaseFeePerGas'], [looseUint256], (wei: bigint) =>
      header.setNextBaseFee(wei),
    ),
    ...aliases(['anvil_setCoinbase', 'hardhat_setCoinbase'], [address], (a: Uint8Array) => header.setCoinbase(a)),
    ...aliases(['hardhat_setPrevRandao'], [word], (v: Uint8Array) => header.setPrevRandao(v)),
    ...['evm_setBlockGasLimit', 'anvil_setBlockGasLimit'].map((name) =>
      defineMethod(name, [required(looseUint64)], ([gas]) => {
        if (gas === 0n) throw invalidParamsError('invalid argument 0: the block gas limit must be above 0')
        header.setBlockGasLimit(gas)
        return true
      }),
    ),
    ...['anvil_dumpState', 'hardhat_dumpState'].map((name) => defineMethod(name, [], async () => bytesToHex(await state.dumpState()))),
    ...['anvil_loadState', 'hardhat_loadState'].map((name) =>
      defineMethod(name, [required(data)], async ([blob]) => {
        await state.loadState(blob)
        return true
      }),
    ),
    ...['anvil_setMinGasPrice', 'hardhat_setMinGasPrice'].map((name) =>
      defineMethod(name, [required(looseUint256)], () => {
        throw invalidParamsError(`${name} is not supported when EIP-1559 is active`)
      }),
    ),
  ]
}
