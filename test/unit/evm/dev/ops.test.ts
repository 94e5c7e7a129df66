/** The dev-operation format: every kind round-trips; malformed bytes are refused; never a transaction's first byte. */
import { describe, expect, it } from 'vitest'
import { DEV_OP_PREFIX, DevOpDecodeError, decodeDevOp, encodeDevOp, isDevOp, type DevOp } from '../../../../src/evm/dev/ops.js'
import { RLP } from '@ethereumjs/rlp'
import { concatBytes, utf8ToBytes } from '../../../../src/primitives/hex.js'

const A = new Uint8Array(20).fill(0xaa)
const W = new Uint8Array(32).fill(0x11)

const ALL: DevOp[] = [
  { kind: 'setBalance', address: A, balance: 10n ** 30n },
  { kind: 'setCode', address: A, code: Uint8Array.of(0x60, 0x00) },
  { kind: 'setNonce', address: A, nonce: 0n },
  { kind: 'setStorageAt', address: A, slot: W, value: new Uint8Array(32) },
  { kind: 'nextTimestamp', timestamp: 1_800_000_000n },
  { kind: 'increaseTime', seconds: 3600n },
  { kind: 'setTime', timestamp: 1n },
  { kind: 'nextBaseFee', baseFee: 0n },
  { kind: 'coinbase', address: A },
  { kind: 'prevRandao', value: W },
  { kind: 'gasLimit', gasLimit: 60_000_000n },
  { kind: 'tx', from: A, raw: Uint8Array.of(2, 0xc0) },
  { kind: 'mine' },
]

describe('dev operations', () => {
  it('round-trips every kind', () => {
    for (const op of ALL) expect(decodeDevOp(encodeDevOp(op))).toEqual(op)
  })

  it('starts with 0xbe "dev", a byte no signed transaction starts with', () => {
    const raw = encodeDevOp(ALL[0]!)
    expect([...raw.subarray(0, 4)]).toEqual([0xbe, 0x64, 0x65, 0x76])
    expect(isDevOp(raw)).toBe(true)
    // EIP-2718: typed envelopes start below 0x80, legacy ones with an RLP list (≥ 0xc0).
    expect(raw[0]! >= 0x80 && raw[0]! < 0xc0).toBe(true)
    expect(isDevOp(Uint8Array.of(0x02, 0xc0))).toBe(false)
  })

  it('refuses unknown kinds, wrong field counts and sizes', () => {
    const op = (...fields: (Uint8Array | bigint)[]) => concatBytes(DEV_OP_PREFIX, RLP.encode(fields))
    expect(() => decodeDevOp(op(utf8ToBytes('mint'), A))).toThrow(DevOpDecodeError)
    expect(() => decodeDevOp(op(utf8ToBytes('setBalance'), A))).toThrow('1 fields, want 2')
    expect(() => decodeDevOp(op(utf8ToBytes('setBalance'), new Uint8Array(19), 1n))).toThrow('19 bytes, want 20')
    expect(() => decodeDevOp(op(utf8ToBytes('prevRandao'), new Uint8Array(31)))).toThrow(DevOpDecodeError)
    expect(() => decodeDevOp(concatBytes(DEV_OP_PREFIX, Uint8Array.of(0xc5)))).toThrow(DevOpDecodeError)
  })
})
