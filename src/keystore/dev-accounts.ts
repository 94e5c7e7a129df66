/**
 * The well-known development accounts: the mnemonic Hardhat and Anvil use, so tools, tutorials and
 * test suites written against them (account 0 = 0xf39F…2266) work against `nodectl start --dev`.
 * These keys are public: never fund them on a real network.
 */
import { ETH_DERIVATION_PREFIX, derivePrivateKey, mnemonicToSeed } from '../crypto/hd.js'
import { privateKeyToAddress } from '../crypto/index.js'
import { toChecksumAddress } from '../primitives/address.js'
import { bytesToHex } from '../primitives/hex.js'

/** Hardhat's and Anvil's default mnemonic. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

/** Number of dev accounts derived and funded (as Anvil and Hardhat: 10). */
export const DEV_ACCOUNT_COUNT = 10

/** Genesis balance of each dev account: 10,000 ether in wei (as Anvil and Hardhat). */
export const DEV_ACCOUNT_BALANCE_WEI = 10_000n * 10n ** 18n

/** One derived account. */
export interface DevAccount {
  /** Position i in the path m/44'/60'/0'/0/i. */
  index: number
  /** BIP-32 path it was derived at. */
  path: string
  /** EIP-55 checksummed address. */
  address: string
  /** 0x-prefixed 32-byte secp256k1 private key. */
  privateKey: string
}

let cache: DevAccount[] = []

/**
 * The first `count` (default 10) accounts of {@link DEV_MNEMONIC}, in path order. Computed once and
 * cached (the BIP-39 seed costs 2048 PBKDF2 rounds).
 */
export function devAccounts(count: number = DEV_ACCOUNT_COUNT): DevAccount[] {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`invalid account count ${count}`)
  if (cache.length < count) cache = deriveAccounts(DEV_MNEMONIC, count)
  return cache.slice(0, count).map((a) => ({ ...a }))
}

/** Derives the first `count` Ethereum accounts of any BIP-39 `mnemonic` along m/44'/60'/0'/0/i. */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  const seed = mnemonicToSeed(mnemonic)
  const out: DevAccount[] = []
  for (let index = 0; index < count; index++) {
    const path = ETH_DERIVATION_PREFIX + index
    const key = derivePrivateKey(seed, path)
    out.push({ index, path, address: toChecksumAddress(privateKeyToAddress(key)), privateKey: bytesToHex(key) })
  }
  return out
}
