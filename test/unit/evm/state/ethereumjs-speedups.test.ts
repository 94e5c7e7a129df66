import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { describe, expect, it } from 'vitest'
import { getCommon } from '../../../../src/evm/common.js'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address } from '@ethereumjs/util'
import {
  installAccountEntries,
  installFastIsActivatedEIP,
  installJumpAnalysisCache,
  installStorageWriteFix,
} from '../../../../src/evm/state/ethereumjs-patches.js'

describe('EVM speed-ups', () => {
  it('installs the JUMPDEST analysis cache', async () => {
    expect(await installJumpAnalysisCache()).toBe(true)
    expect(await installJumpAnalysisCache()).toBe(true)
  })

  it('answers isActivatedEIP as the library does, also on copies that change hardfork', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    const reference = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    installFastIsActivatedEIP(common)
    expect(Object.hasOwn(common, 'isActivatedEIP')).toBe(true)
    const eips = [...Array.from({ length: 8_000 }, (_, i) => i), 20_000, -1]
    for (const eip of eips) expect(common.isActivatedEIP(eip), `EIP ${eip}`).toBe(reference.isActivatedEIP(eip))
    const copy = common.copy()
    copy.setHardfork(Hardfork.Prague)
    reference.setHardfork(Hardfork.Prague)
    for (const eip of [2537, 2935, 7702, 4844, 1559]) expect(copy.isActivatedEIP(eip), `EIP ${eip}`).toBe(reference.isActivatedEIP(eip))
    expect(copy.isActivatedEIP(7702)).toBe(true)
    expect(common.isActivatedEIP(7702)).toBe(false)
  })

  it('is installed on the process Common', () => {
    expect(Object.hasOwn(getCommon(9000n), 'isActivatedEIP')).toBe(true)
    expect(getCommon(9000n).isActivatedEIP(1153)).toBe(true)
  })

  it('reads cached accounts as fresh objects that follow every write', async () => {
    installAccountEntries()
    const sm = new MerkleStateManager({ caches: new Caches() })
    const address = new Address(new Uint8Array(20).fill(7))
    expect(await sm.getAccount(address)).toBeUndefined()
    await sm.putAccount(address, new Account(1n, 100n))
    const first = (await sm.getAccount(address))!
    first.nonce = 99n
    const second = (await sm.getAccount(address))!
    expect(second).not.toBe(first)
    expect([second.nonce, second.balance]).toEqual([1n, 100n])
    second.balance = 50n
    await sm.putAccount(address, second)
    const third = (await sm.getAccount(address))!
    expect([third.nonce, third.balance]).toEqual([1n, 50n])
    expect(third.serialize()).toEqual(second.serialize())
    await sm.deleteAccount(address)
    expect(await sm.getAccount(address)).toBeUndefined()
  })

  it("keeps the account as it was put, encodes it at the flush, and gives the library's state root", async () => {
    installAccountEntries()
    const cached = new MerkleStateManager({ caches: new Caches() })
    const direct = new MerkleStateManager()
    const addresses = [1, 2, 3].map((n) => new Address(new Uint8Array(20).fill(n)))
    for (const sm of [cached, direct]) {
      const account = new Account(1n, 10n)
      await sm.putAccount(addresses[0]!, account)
      account.balance = 20n // the caller changes its object after the put
      await sm.putAccount(addresses[1]!, account)
      await sm.putAccount(addresses[2]!, new Account(0n, 5n))
      await sm.deleteAccount(addresses[2]!)
    }
    expect((await cached.getAccount(addresses[0]!))!.balance).toBe(10n)
    expect((await cached.getAccount(addresses[1]!))!.balance).toBe(20n)
    expect(await cached.getAccount(addresses[2]!)).toBeUndefined()
    expect(await cached.getStateRoot()).toEqual(await direct.getStateRoot())
  })

  it('writes storage into the cache only, with the same state root as writing the trie directly', async () => {
    installStorageWriteFix()
    const cached = new MerkleStateManager({ caches: new Caches() })
    const direct = new MerkleStateManager()
    const trieWrites = () => (cached as unknown as { _storageTries: Record<string, unknown> })._storageTries
    const address = new Address(new Uint8Array(20).fill(9))
    const slot = (n: number) => new Uint8Array(32).fill(n)
    for (const sm of [cached, direct]) {
      await sm.checkpoint()
      await sm.putAccount(address, new Account(1n, 5n))
      for (let i = 1; i <= 20; i++) await sm.putStorage(address, slot(i % 4), Uint8Array.of(i))
      await sm.putStorage(address, slot(2), new Uint8Array(0))
    }
    // nothing reached a storage trie before the flush
    expect(Object.keys(trieWrites())).toEqual([])
    expect(await cached.getStorage(address, slot(1))).toEqual(Uint8Array.of(17))
    expect(await cached.getStorage(address, slot(2))).toEqual(new Uint8Array(0))
    const [a, b] = [await cached.getStateRoot(), await direct.getStateRoot()]
    expect(a).toEqual(b)
    await expect(cached.putStorage(address, new Uint8Array(31), Uint8Array.of(1))).rejects.toThrow('Storage key must be 32 bytes long')
    await expect(cached.putStorage(address, slot(1), new Uint8Array(33))).rejects.toThrow('Storage value cannot be longer than 32 bytes')
    await expect(cached.putStorage(new Address(new Uint8Array(20)), slot(1), Uint8Array.of(1))).rejects.toThrow(
      'putStorage() called on non-existing account',
    )
  })
})
