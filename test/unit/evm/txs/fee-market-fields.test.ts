import { RLP } from '@ethereumjs/rlp'
import { type FeeMarket1559Tx, createFeeMarket1559Tx, createTxFromRLP } from '@ethereumjs/tx'
import { describe, expect, it } from 'vitest'
import { getCommon } from '../../../../src/evm/common.js'
import { readFeeMarketTx } from '../../../../src/evm/txs/fee-market-fields.js'
import { signedFieldsHash } from '../../../../src/evm/txs/signing-hash.js'
import { type DecodedTx, decodeRawTx, decodeRawTxOffThread } from '../../../../src/evm/txs/tx.js'
import { bigintToBytes, concatBytes } from '../../../../src/primitives/hex.js'
import { CHAIN_ID, GWEI, KEYS, RECIPIENT, common, sign1559, signLegacy } from '../../txpool/helpers.js'

const ADDRESS = new Uint8Array(20).fill(0xab)
const KEY = new Uint8Array(32).fill(0xcd)

/** A signed EIP-1559 transaction with an access list and calldata. */
function signWithAccessList(nonce: bigint): Uint8Array {
  return createFeeMarket1559Tx(
    {
      chainId: CHAIN_ID,
      nonce,
      maxPriorityFeePerGas: GWEI,
      maxFeePerGas: 3n * GWEI,
      gasLimit: 90_000n,
      to: RECIPIENT,
      value: 12_345n,
      data: new Uint8Array(70).fill(7),
      accessList: [
        [ADDRESS, [KEY, new Uint8Array(32)]],
        [ADDRESS, []],
      ],
    },
    { common },
  )
    .sign(KEYS[1]!)
    .serialize()
}

const SAMPLES = [
  sign1559(KEYS[0]!),
  sign1559(KEYS[0]!, { nonce: 300n, value: 10n ** 18n, gasLimit: 80_000n, data: new Uint8Array(68).fill(1) }),
  sign1559(KEYS[2]!, { nonce: 2n ** 40n, tip: 0n, feeCap: 0n }),
  signWithAccessList(7n),
]

/** ethereumjs' reading of `raw`, or undefined when it refuses it. */
function libraryRead(raw: Uint8Array): FeeMarket1559Tx | undefined {
  try {
    return createTxFromRLP(raw, { common }) as FeeMarket1559Tx
  } catch {
    return undefined
  }
}

/** Expects the quick reading of `raw` to be the library's, field by field, signing hash included. */
function expectSameAsLibrary(raw: Uint8Array): void {
  const fields = readFeeMarketTx(raw, CHAIN_ID)!
  const tx = libraryRead(raw)
  expect(tx, 'the library refuses what the quick reading accepted').toBeDefined()
  expect(tx!.type).toBe(2)
  expect(fields.nonce).toBe(tx!.nonce)
  expect(fields.maxPriorityFeePerGas).toBe(tx!.maxPriorityFeePerGas)
  expect(fields.maxFeePerGas).toBe(tx!.maxFeePerGas)
  expect(fields.gasLimit).toBe(tx!.gasLimit)
  expect(fields.to).toEqual(tx!.to!.bytes)
  expect(fields.value).toBe(tx!.value)
  expect(fields.data).toEqual(tx!.data)
  expect(fields.accessList).toEqual(tx!.accessList)
  expect(BigInt(fields.recovery)).toBe(tx!.v)
  expect(fields.signature).toEqual(concatBytes(bigintToBytes(tx!.r!, 32), bigintToBytes(tx!.s!, 32)))
  expect(signedFieldsHash(raw, fields.payloadStart, fields.signedEnd)).toEqual(tx!.getMessageToVerifySignature())
}

/** A deterministic byte source (xorshift32), so a failing mutation can be replayed. */
function randomBytes(seed: number): () => number {
  let x = seed
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % 256
  }
}

describe('readFeeMarketTx', () => {
  it('reads a signed EIP-1559 call as ethereumjs decodes it, access list and signing hash included', () => {
    for (const raw of SAMPLES) expectSameAsLibrary(raw)
  })

  it('leaves other types, creations and other chains to the library', () => {
    expect(readFeeMarketTx(signLegacy(KEYS[0]!), CHAIN_ID)).toBeUndefined()
    expect(readFeeMarketTx(sign1559(KEYS[0]!, { to: null, data: new Uint8Array(10) }), CHAIN_ID)).toBeUndefined()
    expect(readFeeMarketTx(SAMPLES[0]!, 1n)).toBeUndefined()
  })

  it('leaves to the library every field the library would refuse or read differently', () => {
    const fields = RLP.decode(SAMPLES[1]!.subarray(1)) as Uint8Array[]
    const encode = (change: (f: Uint8Array[]) => void): Uint8Array => {
      const copy = fields.slice()
      change(copy)
      return concatBytes(Uint8Array.of(2), RLP.encode(copy))
    }
    const cases = [
      encode((f) => (f[1] = concatBytes(Uint8Array.of(0), f[1]!))), // nonce with a leading zero
      encode((f) => (f[0] = concatBytes(Uint8Array.of(0), f[0]!))), // chain id with a leading zero (ethereumjs takes it)
      encode((f) => (f[1] = new Uint8Array(8).fill(0xff))), // nonce 2^64 - 1 (EIP-2681)
      encode((f) => (f[2] = bigintToBytes(4n * GWEI))), // tip above the fee cap
      encode((f) => (f[4] = new Uint8Array(9).fill(1))), // gas limit above 64 bits
      encode((f) => (f[5] = new Uint8Array(19))), // a 19-byte recipient
      encode((f) => (f[9] = Uint8Array.of(2))), // y-parity 2
      encode((f) => (f[10] = new Uint8Array(0))), // no r
      encode((f) => (f[11] = new Uint8Array(32).fill(0xff))), // high s
      encode((f) => f.push(new Uint8Array(0))), // a 13th field
      encode((f) => f.pop()), // 11 fields
      concatBytes(SAMPLES[1]!, Uint8Array.of(0)), // trailing bytes
    ]
    for (const raw of cases) expect(readFeeMarketTx(raw, CHAIN_ID)).toBeUndefined()
  })

  it('accepts no mutated transaction the library refuses or reads differently', () => {
    let accepted = 0
    for (const [i, sample] of SAMPLES.entries()) {
      const next = randomBytes(0x9e3779b9 + i)
      for (let round = 0; round < 400; round++) {
        const raw = sample.slice()
        const edits = 1 + (next() % 3)
        for (let e = 0; e < edits; e++) raw[1 + ((next() * 256 + next()) % (raw.length - 1))] = next()
        if (readFeeMarketTx(raw, CHAIN_ID) === undefined) continue
        accepted++
        expectSameAsLibrary(raw)
      }
    }
    // Mutations of the values themselves (fees, calldata, signature) still read: the check above ran on them.
    expect(accepted).toBeGreaterThan(20)
  })
})

/** Every field of a DecodedTx but the ethereumjs transaction. */
const RECORD_KEYS = [
  'raw',
  'hash',
  'hashHex',
  'cometHash',
  'from',
  'fromHex',
  'type',
  'nonce',
  'gasLimit',
  'to',
  'value',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'chainId',
  'size',
  'data',
  'accessList',
  'authorizations',
] as const satisfies readonly (keyof DecodedTx)[]

describe('decodeRawTxOffThread of an EIP-1559 call', () => {
  it('gives the record and the frozen ethereumjs transaction decodeRawTx gives', async () => {
    for (const raw of SAMPLES) {
      const quick = await decodeRawTxOffThread(raw, getCommon(CHAIN_ID))
      const full = decodeRawTx(raw, common)
      for (const key of RECORD_KEYS) expect(quick[key], key).toEqual(full[key])
      const quickTx = quick.tx
      const fullTx = full.tx
      expect(Object.isFrozen(quickTx)).toBe(true)
      expect(quickTx.serialize()).toEqual(fullTx.serialize())
      expect(quickTx.hash()).toEqual(full.hash)
      expect(quickTx.getSenderAddress().bytes).toEqual(full.from)
      expect(quickTx.getSenderPublicKey()).toEqual(fullTx.getSenderPublicKey())
      expect(quick.tx).toBe(quickTx)
    }
  })
})
