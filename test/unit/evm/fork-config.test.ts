/**
 * The EIP-7910 description of the chain's rules against the EIPs' own figures: EIP-2124's fork hash of
 * Ethereum's genesis, EIP-7910's Cancun precompile list, EIP-4844's blob base fee.
 */
import { describe, expect, it } from 'vitest'
import { getCommon } from '../../../src/evm/common.js'
import { blobBaseFee, BLOB_BASE_FEE_UPDATE_FRACTION, MIN_BLOB_BASE_FEE } from '../../../src/evm/blob-fee.js'
import { describeForkConfig, VALIDATOR_ADMIN_NAME } from '../../../src/evm/fork-config.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'

const MAINNET_GENESIS = hexToBytes('0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3')

/** EIP-7910's Cancun precompiles (its Hoodi sample), name → address. */
const CANCUN_PRECOMPILES = {
  BLAKE2F: '0x0000000000000000000000000000000000000009',
  BN254_ADD: '0x0000000000000000000000000000000000000006',
  BN254_MUL: '0x0000000000000000000000000000000000000007',
  BN254_PAIRING: '0x0000000000000000000000000000000000000008',
  ECREC: '0x0000000000000000000000000000000000000001',
  ID: '0x0000000000000000000000000000000000000004',
  KZG_POINT_EVALUATION: '0x000000000000000000000000000000000000000a',
  MODEXP: '0x0000000000000000000000000000000000000005',
  RIPEMD160: '0x0000000000000000000000000000000000000003',
  SHA256: '0x0000000000000000000000000000000000000002',
}

describe('fork config (EIP-7910)', () => {
  it("forkId is EIP-2124's CRC32 of the genesis hash when no fork follows genesis (Ethereum's: 0xfc64ec04)", () => {
    expect(bytesToHex(describeForkConfig(getCommon(1n), MAINNET_GENESIS).forkId)).toBe('0xfc64ec04')
  })

  it("lists Cancun's precompiles under EIP-7910's names, plus the validator admin; no system contract", () => {
    for (const rules of [{}, { setCode: true }]) {
      const config = describeForkConfig(getCommon(9000n, rules), MAINNET_GENESIS)
      const precompiles = Object.fromEntries(config.precompiles.map(([name, address]) => [name, bytesToHex(address)]))
      expect(precompiles).toEqual({ ...CANCUN_PRECOMPILES, [VALIDATOR_ADMIN_NAME]: '0x0000000000000000000000000000000000000800' })
      expect(config.systemContracts).toEqual([])
      expect(config.chainId).toBe(9000n)
      expect(config.activationTime).toBe(0)
      expect(config.blobSchedule).toEqual({ baseFeeUpdateFraction: 3_338_477, max: 0, target: 0 })
    }
  })

  it("blob base fee follows EIP-4844's fake exponential: 1 wei at no excess", () => {
    expect(MIN_BLOB_BASE_FEE).toBe(1n)
    expect(blobBaseFee(0n)).toBe(1n)
    // e^1 ≈ 2.718 → 2; e^10 ≈ 22026.47 → 22026 (integer series, rounded down).
    expect(blobBaseFee(BLOB_BASE_FEE_UPDATE_FRACTION)).toBe(2n)
    expect(blobBaseFee(10n * BLOB_BASE_FEE_UPDATE_FRACTION)).toBe(22026n)
  })
})
