/**
 * eth methods reading account state at a block: balance, nonce, code, storage. The block parameter
 * (EIP-1898) is optional and defaults to `latest` (docs/decisions.md); past the head → `header not found`.
 * The storage key is a Go `string` in geth, decoded by the handler after the state is resolved: a bad
 * key is -32000 `unable to decode storage key: hex string invalid`, not an invalid argument.
 */
import { toQuantity } from '../../primitives/quantity.js'
import { NodeError } from '../../utils/errors.js'
import { address, decodeStorageKey, string, type Codec } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { blockSelector, type BlockSelector } from './block-params.js'
import { encodeData } from './format.js'
import { resolveStateHeight, stateHeight } from './resolve-block.js'
import { mapAwaitable, type Awaitable } from '../../utils/awaitable.js'

const STORAGE_WORD = 32

/** The storage key of eth_getStorageAt: a Go string (geth `hexKey string`), decoded by the handler. */
export const storageKeyText: Codec<string> = (value) => string(value)

/** geth `GetStorageAt`: the key's decoding failure is a server error naming the key. */
function decodeSlot(key: string): Uint8Array {
  try {
    return decodeStorageKey(key)
  } catch (err) {
    throw new NodeError(`unable to decode storage key: ${(err as Error).message}`)
  }
}

/**
 * An account field at the block `at` names, as a QUANTITY: without a promise when the block is a number
 * or tag and the backend has the account at hand (a poll between two blocks).
 */
function accountQuantity(backend: EthBackend, at: BlockSelector, read: (height: number) => Awaitable<bigint>): Awaitable<string> {
  if (typeof at === 'object') return resolveStateHeight(backend, at).then(read).then(toQuantity)
  return mapAwaitable(read(stateHeight(backend, at)), toQuantity)
}

export function createEthStateMethods(backend: EthBackend): MethodTable {
  const block = optional(blockSelector, 'latest')
  return [
    defineMethod('eth_getBalance', [required(address), block], ([account, at]) =>
      accountQuantity(backend, at, (h) => backend.getBalance(account, h)),
    ),
    defineMethod('eth_getTransactionCount', [required(address), block], ([account, at]) => {
      // `pending` counts the pool's executable transactions of the sender (geth).
      if (at === 'pending') return backend.getPendingNonce(account).then(toQuantity)
      return accountQuantity(backend, at, (h) => backend.getNonce(account, h))
    }),
    defineMethod('eth_getCode', [required(address), block], async ([account, at]) => {
      const height = await resolveStateHeight(backend, at)
      return encodeData(await backend.getCode(account, height))
    }),
    defineMethod('eth_getStorageAt', [required(address), required(storageKeyText), block], async ([account, key, at]) => {
      const height = await resolveStateHeight(backend, at)
      const slot = decodeSlot(key)
      const value = await backend.getStorageAt(account, slot, height)
      if (value.length === STORAGE_WORD) return encodeData(value)
      const word = new Uint8Array(STORAGE_WORD)
      word.set(value.subarray(Math.max(0, value.length - STORAGE_WORD)), Math.max(0, STORAGE_WORD - value.length))
      return encodeData(word)
    }),
  ]
}
