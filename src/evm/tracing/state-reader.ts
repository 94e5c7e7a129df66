/**
 * The tracers' view of the state (hooks.ts TraceStateReader) over the state manager of the copy being
 * traced: reads see the state at the moment of the hook, uncommitted changes of the transaction included
 * (geth hands tracers the live StateDB).
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import type { TraceStateReader } from './hooks.js'

const WORD = 32

export function createStateReader(sm: StateManagerInterface): TraceStateReader {
  return {
    async getBalance(address) {
      return (await sm.getAccount(new Address(address)))?.balance ?? 0n
    },
    async getNonce(address) {
      return (await sm.getAccount(new Address(address)))?.nonce ?? 0n
    },
    getCode(address) {
      return sm.getCode(new Address(address))
    },
    async getStorage(address, slot) {
      const value = await sm.getStorage(new Address(address), slot)
      const out = new Uint8Array(WORD)
      out.set(value.subarray(Math.max(0, value.length - WORD)), WORD - Math.min(WORD, value.length))
      return out
    },
    async exists(address) {
      return (await sm.getAccount(new Address(address))) !== undefined
    },
  }
}
