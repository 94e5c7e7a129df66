import { mnemonicToSeedSync } from 'ethereum-cryptography/bip39/index.js'
import { HDKey } from 'ethereum-cryptography/hdkey.js'
import { describe, expect, it } from 'vitest'
import { derivePrivateKey, mnemonicToSeed } from '../../../src/crypto/hd.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'

const MNEMONIC = 'test test test test test test test test test test test junk'

describe('BIP-39 / BIP-32', () => {
  it('gives the seed @scure/bip39 gives, with and without a passphrase', () => {
    expect(bytesToHex(mnemonicToSeed(MNEMONIC))).toBe(bytesToHex(mnemonicToSeedSync(MNEMONIC)))
    expect(bytesToHex(mnemonicToSeed(MNEMONIC, 'TREZOR'))).toBe(bytesToHex(mnemonicToSeedSync(MNEMONIC, 'TREZOR')))
  })

  it('matches BIP-32 test vector 1', () => {
    const seed = hexToBytes('0x000102030405060708090a0b0c0d0e0f')
    // m/0'/1/2'/2/1000000000 private key of the BIP-32 specification's first test vector
    expect(bytesToHex(derivePrivateKey(seed, "m/0'/1/2'/2/1000000000"))).toBe(
      '0x471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8',
    )
  })

  it('derives what @scure/bip32 derives', () => {
    const seed = mnemonicToSeed(MNEMONIC)
    const paths = ['m', "m/44'", "m/44'/60'/0'/0/0", "m/44'/60'/0'/0/19", "m/44'/60'/3'/1/7", 'm/0/1/2', 'm/44h/60h/0h/0/5']
    for (const path of paths) {
      const expected = HDKey.fromMasterSeed(seed).derive(path.replaceAll('h', "'")).privateKey!
      expect(bytesToHex(derivePrivateKey(seed, path)), path).toBe(bytesToHex(expected))
    }
  })

  it('refuses malformed paths', () => {
    const seed = mnemonicToSeed(MNEMONIC)
    expect(() => derivePrivateKey(seed, "44'/60'")).toThrow('must start with "m"')
    expect(() => derivePrivateKey(seed, 'm/x')).toThrow('bad index')
    expect(() => derivePrivateKey(seed, 'm/2147483648')).toThrow('bad index')
  })
})
