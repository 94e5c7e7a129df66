/**
 * Sender recovery on the recovery thread (crypto/recovery-thread.ts): the thread's keys are the
 * main thread's, and a transaction decoded with one is the one `decodeRawTx` gives, errors included.
 */
import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from 'vitest'
import { decodeRawTx, decodeRawTxOffThread } from '../../../src/evm/txs/tx.js'
import { keccak256, packSignature, recoverPublicKey, secp256k1Backend, signHash } from '../../../src/crypto/index.js'
import { recoverOffThread } from '../../../src/crypto/recovery-thread.js'
import { bigintToBytes, bytesToBigint, bytesToHex, concatBytes } from '../../../src/primitives/hex.js'
import { KEYS, common, sign1559, sign2930, signLegacy, signUnprotected } from '../txpool/helpers.js'

/** secp256k1's order n: s and n − s are the two signatures of one message, the second one refused (EIP-2). */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** A typed transaction with its signature's r or s replaced. */
function withSignature(raw: Uint8Array, change: (r: bigint, s: bigint) => [bigint, bigint]): Uint8Array {
  const fields = RLP.decode(raw.subarray(1)) as Uint8Array[]
  const [r, s] = change(bytesToBigint(fields.at(-2)!), bytesToBigint(fields.at(-1)!))
  return concatBytes(raw.subarray(0, 1), RLP.encode([...fields.slice(0, -2), bigintToBytes(r), bigintToBytes(s)]))
}

/** What a decoding gives: the sender and hash, or the error's message. */
async function outcome(decode: () => unknown): Promise<string> {
  try {
    const tx = (await decode()) as { fromHex: string; hashHex: string }
    return `${tx.fromHex} ${tx.hashHex}`
  } catch (err) {
    return `error: ${(err as Error).message}`
  }
}

describe('recovery thread', () => {
  it('runs with the native binding here (else recovery stays on the main thread and this file tests nothing)', () => {
    expect(secp256k1Backend()).toBe('native')
  })

  it('recovers what the main thread recovers, a batch at once, and nothing for a signature that does not recover', async () => {
    const jobs = Array.from({ length: 40 }, (_, i) => {
      const hash = keccak256(new TextEncoder().encode(`message ${i}`))
      const { r, s, recovery } = signHash(hash, KEYS[i % KEYS.length]!)
      return { hash, r, s, recovery }
    })
    const keys = await Promise.all(jobs.map((j) => recoverOffThread(j.hash, packSignature(j.r, j.s), j.recovery)))
    expect(keys.map((k) => bytesToHex(k!))).toEqual(jobs.map((j) => bytesToHex(recoverPublicKey(j.hash, j.r, j.s, j.recovery))))
    expect(await recoverOffThread(jobs[0]!.hash, new Uint8Array(64), 0)).toBeUndefined()
  })

  it('decodes every transaction type as decodeRawTx does, bad signatures with the same errors', async () => {
    const key = KEYS[1]!
    const good = sign1559(key, { nonce: 7n })
    const raws = [
      signLegacy(key, { nonce: 1n }),
      signUnprotected(key, { nonce: 2n }),
      sign2930(key, { nonce: 3n }),
      good,
      withSignature(good, (r, s) => [r, N - s]),
      withSignature(good, (r, s) => [r + 1n, s]),
      // Small r: some are no point's x coordinate, so nothing recovers.
      ...[1n, 2n, 3n, 4n, 5n, 6n].map((r) => withSignature(good, () => [r, 1n])),
    ]
    const outcomes: string[] = []
    for (const raw of raws) {
      const offThread = await outcome(() => decodeRawTxOffThread(raw, common))
      expect(offThread).toBe(await outcome(() => decodeRawTx(raw, common)))
      outcomes.push(offThread)
    }
    expect(outcomes.filter((o) => o.startsWith('error: invalid sender: ')).length).toBeGreaterThan(0)
  })
})
