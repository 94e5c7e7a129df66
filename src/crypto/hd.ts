/**
 * BIP-39 mnemonics and BIP-32 hierarchical deterministic keys, as wallets (MetaMask, Hardhat, Anvil,
 * ethers) derive Ethereum accounts: seed = PBKDF2(mnemonic), then the path m/44'/60'/0'/0/i (BIP-44,
 * coin type 60 = Ether, SLIP-44).
 */
import { mnemonicToSeedSync, validateMnemonic } from 'ethereum-cryptography/bip39/index.js'
import { wordlist } from 'ethereum-cryptography/bip39/wordlists/english.js'
import { HDKey } from 'ethereum-cryptography/hdkey.js'

/** The BIP-44 path prefix of Ethereum accounts; account i is `${ETH_DERIVATION_PREFIX}${i}`. */
export const ETH_DERIVATION_PREFIX = "m/44'/60'/0'/0/"

/** True when `mnemonic` is a valid English BIP-39 phrase (words in the list, checksum correct). */
export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(mnemonic.trim(), wordlist)
}

/** The 64-byte BIP-39 seed of a mnemonic (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" + passphrase). */
export function mnemonicToSeed(mnemonic: string, passphrase = ''): Uint8Array {
  if (!isValidMnemonic(mnemonic)) throw new Error('invalid BIP-39 mnemonic')
  return mnemonicToSeedSync(mnemonic.trim(), passphrase)
}

/** Derives the 32-byte secp256k1 private key at a BIP-32 `path` (e.g. m/44'/60'/0'/0/0) from a BIP-39 seed. */
export function derivePrivateKey(seed: Uint8Array, path: string): Uint8Array {
  const key = HDKey.fromMasterSeed(seed).derive(path).privateKey
  if (!key) throw new Error(`no private key at ${path}`)
  return key
}
