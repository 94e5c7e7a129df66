import { describe, expect, it } from 'vitest'
import { derivePrivateKey, isValidMnemonic, mnemonicToSeed } from '../../../src/crypto/hd.js'
import { DEV_ACCOUNT_BALANCE_WEI, DEV_MNEMONIC, deriveAccounts, devAccounts } from '../../../src/keystore/dev-accounts.js'
import { bytesToHex } from '../../../src/primitives/hex.js'

describe('dev accounts', () => {
  it('derives the Hardhat / Anvil accounts', () => {
    const accounts = devAccounts()
    expect(accounts).toHaveLength(10)
    expect(accounts[0]).toEqual({
      index: 0,
      path: "m/44'/60'/0'/0/0",
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    })
    expect(accounts[1]!.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
    expect(accounts[1]!.privateKey).toBe('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
    expect(accounts[9]!.address).toBe('0xa0Ee7A142d267C1f36714E4a8F75612F20a79720')
    expect(new Set(accounts.map((a) => a.address)).size).toBe(10)
  })

  it('funds each with 10,000 ether', () => {
    expect(DEV_ACCOUNT_BALANCE_WEI).toBe(10_000n * 10n ** 18n)
  })

  it('returns copies, so callers cannot change the cache', () => {
    devAccounts()[0]!.address = 'x'
    expect(devAccounts(1)[0]!.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
  })

  it('derives any mnemonic and path', () => {
    expect(isValidMnemonic(DEV_MNEMONIC)).toBe(true)
    expect(isValidMnemonic('test test test')).toBe(false)
    expect(() => mnemonicToSeed('junk junk junk junk junk junk junk junk junk junk junk junk')).toThrow('invalid BIP-39 mnemonic')
    const seed = mnemonicToSeed(DEV_MNEMONIC)
    expect(bytesToHex(derivePrivateKey(seed, "m/44'/60'/0'/0/0"))).toBe(
      '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    )
    expect(deriveAccounts(DEV_MNEMONIC, 2).map((a) => a.address)).toEqual(devAccounts(2).map((a) => a.address))
  })

  it('holds the ten known accounts exactly as they derive, and derives beyond them', () => {
    expect(devAccounts()).toEqual(deriveAccounts(DEV_MNEMONIC, 10))
    expect(devAccounts(12)).toEqual(deriveAccounts(DEV_MNEMONIC, 12))
  })
})
