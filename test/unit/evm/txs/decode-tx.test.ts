import { Mainnet, createCustomCommon } from '@ethereumjs/common'
import { createTxFromRLP } from '@ethereumjs/tx'
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../../../../src/crypto/index.js'
import { CHAIN_ID, GWEI, KEYS, decode, sign1559, sign2930, signLegacy } from '../../txpool/helpers.js'

describe('decodeRawTx', () => {
  it('gives the EVM hash Keccak-256(raw), the same as ethereumjs computes from its re-serialisation', () => {
    const key = KEYS[0]!
    // A plain Common: ethereumjs' own keccak of its own serialisation.
    const plain = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet)
    for (const raw of [
      signLegacy(key, { nonce: 3n }),
      sign2930(key, { nonce: 4n }),
      sign1559(key, { nonce: 5n, tip: 2n * GWEI, feeCap: 9n * GWEI }),
    ]) {
      const decoded = decode(raw)
      expect(decoded.hash).toEqual(keccak256(raw))
      expect(decoded.tx.hash()).toEqual(decoded.hash)
      expect(createTxFromRLP(raw, { common: plain }).hash()).toEqual(decoded.hash)
    }
  })
})
