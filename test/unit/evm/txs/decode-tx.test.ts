import { Mainnet, createCustomCommon } from '@ethereumjs/common'
import { createEOACode7702Tx, createTxFromRLP } from '@ethereumjs/tx'
import { eoaCode7702SignAuthorization } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { keccak256, signHash } from '../../../../src/crypto/index.js'
import { getCommon } from '../../../../src/evm/common.js'
import { computeIntrinsicGas } from '../../../../src/evm/txs/intrinsic-gas.js'
import { parseRawTx } from '../../../../src/evm/txs/raw-tx.js'
import { decodeRawTx } from '../../../../src/evm/txs/tx.js'
import { bytesToBigint, hexToBytes } from '../../../../src/primitives/hex.js'
import { ADDRS, CHAIN_ID, GWEI, KEYS, RECIPIENT, decode, sign1559, sign2930, signLegacy } from '../../txpool/helpers.js'

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

describe('set-code transactions (EIP-7702)', () => {
  const setCodeCommon = getCommon(CHAIN_ID, { setCode: true })
  const delegate = hexToBytes(RECIPIENT)
  const authorization = eoaCode7702SignAuthorization({ chainId: '0x7a69', address: RECIPIENT as `0x${string}`, nonce: '0x0' }, KEYS[1]!)
  const unsigned = createEOACode7702Tx(
    {
      chainId: CHAIN_ID,
      nonce: 0n,
      maxPriorityFeePerGas: GWEI,
      maxFeePerGas: 2n * GWEI,
      gasLimit: 100_000n,
      to: RECIPIENT,
      authorizationList: [authorization],
    },
    { common: setCodeCommon },
  )
  const { r, s, recovery } = signHash(unsigned.getHashedMessageToSign(), KEYS[0]!)
  const raw = unsigned.addSignature(BigInt(recovery), r, s).serialize()

  it('are refused under Cancun rules and decoded on a dev chain, with their fees and the intrinsic gas of the authorization', () => {
    expect(() => decodeRawTx(raw, getCommon(CHAIN_ID))).toThrow(
      'transaction type not supported: set-code transactions (EIP-7702) are not active (Cancun rules)',
    )
    const decoded = decodeRawTx(raw, setCodeCommon)
    expect(decoded).toMatchObject({ type: 4, maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI, fromHex: ADDRS[0] })
    expect(computeIntrinsicGas(decoded)).toBe(21_000n + 25_000n)
  })

  it('read back from storage with their authorization list', () => {
    const fields = parseRawTx(raw)
    expect(fields).toMatchObject({ type: 4, maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI, gas: 100_000n, to: delegate })
    expect(fields.authorizationList).toEqual([
      {
        chainId: CHAIN_ID,
        address: delegate,
        nonce: 0n,
        yParity: bytesToBigint(authorization[3]),
        r: bytesToBigint(authorization[4]),
        s: bytesToBigint(authorization[5]),
      },
    ])
  })
})
