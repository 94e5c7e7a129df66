/**
 * The signing hash read from a typed transaction's raw bytes (src/evm/txs/signing-hash.ts) is the one
 * ethereumjs computes by re-encoding the decoded fields, for every typed kind and every size of RLP
 * header; a legacy transaction gets none (its EIP-155 message is not a prefix of its fields).
 */
import { createEOACode7702Tx, createTxFromRLP } from '@ethereumjs/tx'
import { eoaCode7702SignAuthorization } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { signHash } from '../../../../src/crypto/index.js'
import { getCommon, txCommonOf } from '../../../../src/evm/common.js'
import { typedTxSigningHash } from '../../../../src/evm/txs/signing-hash.js'
import { bytesToHex } from '../../../../src/primitives/hex.js'
import { CHAIN_ID, GWEI, KEYS, RECIPIENT, common, sign1559, sign2930, signLegacy, signUnprotected } from '../../txpool/helpers.js'

const setCodeCommon = getCommon(CHAIN_ID, { setCode: true })

/** What ethereumjs signs for `raw`, from the transaction it decodes. */
function libraryHash(raw: Uint8Array, c = common): string {
  return bytesToHex(createTxFromRLP(raw, { common: txCommonOf(c), allowUnlimitedInitCodeSize: true }).getMessageToVerifySignature())
}

/** Call data of `n` bytes, none zero, so every length class of the RLP string header comes up. */
const data = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i % 255) + 1)

function signSetCode(nonce: bigint, payload: Uint8Array): Uint8Array {
  const authorization = eoaCode7702SignAuthorization({ chainId: '0x7a69', address: RECIPIENT as `0x${string}`, nonce: '0x0' }, KEYS[1]!)
  const unsigned = createEOACode7702Tx(
    {
      chainId: CHAIN_ID,
      nonce,
      maxPriorityFeePerGas: GWEI,
      maxFeePerGas: 2n * GWEI,
      gasLimit: 100_000n,
      to: RECIPIENT,
      data: payload,
      authorizationList: [authorization],
    },
    { common: setCodeCommon },
  )
  const { r, s, recovery } = signHash(unsigned.getHashedMessageToSign(), KEYS[0]!)
  return unsigned.addSignature(BigInt(recovery), r, s).serialize()
}

describe('typedTxSigningHash', () => {
  // 0 and 1 byte, a short list, the 55/56-byte edges, 1- and 2-byte long lengths, a list over 64 KiB.
  const sizes = [0, 1, 20, 40, 41, 55, 56, 200, 255, 256, 70_000]

  it('is what ethereumjs signs for EIP-1559 and EIP-2930 transactions of every size, with and without a recipient', () => {
    const key = KEYS[0]!
    for (const [i, n] of sizes.entries()) {
      const nonce = BigInt(i) * 1_000_003n
      for (const raw of [
        sign1559(key, { nonce, data: data(n), value: 10n ** 18n + BigInt(n), tip: 3n * GWEI, feeCap: 7n * GWEI }),
        sign1559(key, { nonce, data: data(n), to: null, gasLimit: 5_000_000n }),
        sign2930(key, {
          nonce,
          data: data(n),
          accessList: [
            { address: RECIPIENT, storageKeys: Array.from({ length: i }, (_, k) => `0x${(k + 1).toString(16).padStart(64, '0')}`) },
          ],
        }),
      ]) {
        expect(bytesToHex(typedTxSigningHash(raw)!)).toBe(libraryHash(raw))
      }
    }
  })

  it('is what ethereumjs signs for a set-code transaction (EIP-7702)', () => {
    for (const n of sizes) {
      const raw = signSetCode(BigInt(n), data(n))
      expect(bytesToHex(typedTxSigningHash(raw)!)).toBe(libraryHash(raw, setCodeCommon))
    }
  })

  it('is undefined for legacy transactions', () => {
    expect(typedTxSigningHash(signLegacy(KEYS[0]!, { nonce: 1n }))).toBeUndefined()
    expect(typedTxSigningHash(signUnprotected(KEYS[0]!, { nonce: 1n }))).toBeUndefined()
  })
})
