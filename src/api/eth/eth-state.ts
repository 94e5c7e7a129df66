/**
 * eth methods reading account state at a block: balance, nonce, code, storage. The block parameter
 * (EIP-1898) is optional and defaults to `latest` (decisions.md); past the head → `header not found`.
 */
import { toQuantity } from '../../primitives/quantity.js'
import { address, storageKey } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { blockSelector } from './block-params.js'
import { encodeData } from './format.js'
import { resolveStateHeight } from './resolve-block.js'

const STORAGE_WORD = 32

export function createEthStateMethods(backend: EthBackend): MethodTable {
  const block = optional(blockSelector, 'latest')
  return [
    defineMethod('eth_getBalance', [required(address), block], async ([account, at]) => {
      const height = await resolveStateHeight(backend, at)
      return toQuantity(await backend.getBalance(account, height))
    }),
    defineMethod('eth_getTransactionCount', [required(address), block], async ([account, at]) => {
      // `pending` counts the pool's executable transactions of the sender (geth).
      if (at === 'pending') return toQuantity(await backend.getPendingNonce(account))
      const height = await resolveStateHeight(backend, at)
      return toQuantity(await backend.getNonce(account, height))
    }),
    defineMethod('eth_getCode', [required(address), block], async ([account, at]) => {
      const height = await resolveStateHeight(backend, at)
      return encodeData(await backend.getCode(account, height))
    }),
    defineMethod('eth_getStorageAt', [required(address), required(storageKey), block], async ([account, slot, at]) => {
      const height = await resolveStateHeight(backend, at)
      const value = await backend.getStorageAt(account, slot, height)
      if (value.length === STORAGE_WORD) return encodeData(value)
      const word = new Uint8Array(STORAGE_WORD)
      word.set(value.subarray(Math.max(0, value.length - STORAGE_WORD)), Math.max(0, STORAGE_WORD - value.length))
      return encodeData(word)
    }),
  ]
}
