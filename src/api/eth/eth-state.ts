/**
 * eth methods reading account state at a block: balance, nonce, code, storage. The block parameter
 * (EIP-1898) is optional and defaults to `latest` (docs/decisions.md); past the head → `header not found`.
 * The storage key is a Go `string` in geth, decoded by the handler after the state is resolved: a bad
 * key is -32000 `unable to decode storage key: hex string invalid`, not an invalid argument.
 * eth_getStorageValues reads several slots of several accounts at one block, as geth: at most
 * {@link MAX_STORAGE_SLOTS} slots in all (-38026 `too many slots (max 1024)`), at least one (-32602
 * `empty request`); its keys are the spec's `bytesMax32` (a bad one is an invalid argument, as geth's
 * typed keys are), and the answer's addresses are lower-case and sorted, as geth's JSON map.
 */
import { bytesToHex, hexToBytes } from '../../primitives/hex.js'
import { toQuantity } from '../../primitives/quantity.js'
import { NodeError } from '../../utils/errors.js'
import { address, arrayOf, DecodeError, decodeStorageKey, objectOf, string, type Codec } from '../../rpc/codecs.js'
import { RpcErrorCode } from '../../rpc/json-rpc.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import { invalidParamsError, RpcError } from '../../rpc/rpc-errors.js'
import type { EthBackend } from './backend.js'
import { blockSelector, type BlockSelector } from './block-params.js'
import { encodeData } from './format.js'
import { resolveStateHeight, stateHeight } from './resolve-block.js'
import { mapAwaitable, type Awaitable } from '../../utils/awaitable.js'

const STORAGE_WORD = 32

/** Most slots one eth_getStorageValues reads, all accounts together (geth's fixed `maxGetStorageSlots`). */
export const MAX_STORAGE_SLOTS = 1024

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
 * A slot of eth_getStorageValues: the spec's `bytesMax32`, `0x` and up to 64 hex digits (an odd count
 * is left-padded), as a 32-byte key.
 */
const storageSlot: Codec<Uint8Array> = (value) => {
  const text = string(value)
  if (!text.startsWith('0x') && !text.startsWith('0X'))
    throw new DecodeError(`storage key ${JSON.stringify(text)}: hex string without 0x prefix`)
  try {
    return decodeStorageKey(text)
  } catch (err) {
    throw new DecodeError(`storage key ${JSON.stringify(text)}: ${(err as Error).message}`)
  }
}

/** eth_getStorageValues' requests: address → slots (geth `map[common.Address][]common.Hash`; a repeated address: the last list). */
export const storageRequests: Codec<Map<string, Uint8Array[]>> = (value) => {
  const requests = new Map<string, Uint8Array[]>()
  // A JSON null is Go's nil map: no request (`empty request`).
  if (value === null) return requests
  for (const [key, slots] of Object.entries(objectOf(value, 'map[common.Address][]common.Hash'))) {
    requests.set(bytesToHex(address(key)), arrayOf(storageSlot, '[]common.Hash')(slots))
  }
  return requests
}

/** A storage value as a 32-byte word (the backend's value, left-padded or cut to its low 32 bytes). */
function storageWord(value: Uint8Array): string {
  if (value.length === STORAGE_WORD) return encodeData(value)
  const word = new Uint8Array(STORAGE_WORD)
  word.set(value.subarray(Math.max(0, value.length - STORAGE_WORD)), Math.max(0, STORAGE_WORD - value.length))
  return encodeData(word)
}

/** geth's limits of eth_getStorageValues, checked before the block is resolved. */
function checkSlotCount(requests: Map<string, Uint8Array[]>): void {
  let total = 0
  for (const slots of requests.values()) total += slots.length
  if (total > MAX_STORAGE_SLOTS) throw new RpcError(RpcErrorCode.clientLimitExceeded, `too many slots (max ${MAX_STORAGE_SLOTS})`)
  if (total === 0) throw invalidParamsError('empty request')
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
      return storageWord(await backend.getStorageAt(account, slot, height))
    }),
    defineMethod('eth_getStorageValues', [required(storageRequests), block], async ([requests, at]) => {
      checkSlotCount(requests)
      const height = await resolveStateHeight(backend, at)
      const accounts = [...requests.keys()].sort()
      const values = await Promise.all(
        accounts.map((account) => {
          const bytes = hexToBytes(account)
          return Promise.all(requests.get(account)!.map(async (slot) => storageWord(await backend.getStorageAt(bytes, slot, height))))
        }),
      )
      return Object.fromEntries(accounts.map((account, i) => [account, values[i]!]))
    }),
  ]
}
