/**
 * What a block changed, as the flat state needs it: the consensus state manager writes the accounts
 * and slots of a block into its tries once, when its caches are flushed at the block's state root
 * (executor.ts: one checkpoint per block), and the caches' `flush` hands out exactly those entries.
 * Wrapping the flush of the consensus VM's caches records them; wrapping `clearStorage` and
 * `deleteAccount` records the accounts whose storage may have been wiped as a whole (a contract
 * created over an address, EIP-6780's SELFDESTRUCT in the creating transaction), which the flush does
 * not list slot by slot. Such a record may stay after its transaction reverted: it only makes the
 * commit look closer (flat-state.ts).
 */
import type { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import type { Address } from '@ethereumjs/util'

export class FlatDiff {
  /** Address (unprefixed hex) → the account's RLP, or null when deleted. */
  readonly accounts = new Map<string, Uint8Array | null>()
  /** Address → slot (unprefixed hex) → the cached RLP value (undefined or the empty string's RLP: no slot). */
  readonly slots = new Map<string, Map<string, Uint8Array | undefined>>()
  /** Addresses whose storage was cleared, or which were deleted. */
  readonly wiped = new Set<string>()

  clear(): void {
    this.accounts.clear()
    this.slots.clear()
    this.wiped.clear()
  }
}

type AccountItem = [string, { accountRLP: Uint8Array | undefined }]
type StorageItem = [string, string, Uint8Array | undefined]

const hexOf = (address: Address): string => Buffer.from(address.bytes).toString('hex')

/** Records into a new FlatDiff what `sm` (over `caches`) flushes into its tries and what it wipes. */
export function recordFlatDiff(sm: MerkleStateManager, caches: Caches): FlatDiff {
  const diff = new FlatDiff()
  const accountCache = caches.account as unknown as { flush(): AccountItem[] } | undefined
  const storageCache = caches.storage as unknown as { flush(): StorageItem[] } | undefined
  if (!accountCache || !storageCache) throw new Error('the flat state records the consensus state caches: they must exist')
  const flushAccounts = accountCache.flush.bind(accountCache)
  accountCache.flush = () => {
    const items = flushAccounts()
    for (const [address, elem] of items) diff.accounts.set(address, elem.accountRLP ?? null)
    return items
  }
  const flushStorage = storageCache.flush.bind(storageCache)
  storageCache.flush = () => {
    const items = flushStorage()
    for (const [address, slot, value] of items) {
      let slots = diff.slots.get(address)
      if (!slots) {
        slots = new Map()
        diff.slots.set(address, slots)
      }
      slots.set(slot, value)
    }
    return items
  }
  const clearStorage = sm.clearStorage.bind(sm)
  sm.clearStorage = (address: Address) => {
    diff.wiped.add(hexOf(address))
    return clearStorage(address)
  }
  const deleteAccount = sm.deleteAccount.bind(sm)
  sm.deleteAccount = (address: Address) => {
    diff.wiped.add(hexOf(address))
    return deleteAccount(address)
  }
  return diff
}
