import { describe, expect, it } from 'vitest'
import { ed25519FromSeed } from '../../../src/crypto/index.js'
import { bytesToBase64, bytesToHex, bytesToUpperHex, utf8ToBytes } from '../../../src/primitives/hex.js'
import { encodeSimpleValidator } from '../../../src/comet/validator-set-codec.js'
import { MAX_TOTAL_VOTING_POWER, type Validator } from '../../../src/comet/types.js'
import { ValidatorSet, validatorAddress } from '../../../src/comet/validator-set.js'
import { testKey } from './fixtures.js'

const hex = (b: Uint8Array): string => bytesToHex(b).slice(2)

/** A deep copy of what a set holds: validators with priorities, and the proposer. */
const snapshot = (set: ValidatorSet) => structuredClone({ validators: set.validators, proposer: set.proposer })

/** A validator with an arbitrary address, as CometBFT's tests build them (`newValidator(addr, power)`). */
function val(address: Uint8Array | string, power: bigint): Validator {
  const addr = typeof address === 'string' ? utf8ToBytes(address) : address
  return { address: addr, pubKey: new Uint8Array(32), votingPower: power, proposerPriority: 0n }
}

const addr = (last: number): Uint8Array => {
  const a = new Uint8Array(20)
  a[19] = last
  return a
}

const prios = (set: ValidatorSet): Record<string, bigint> =>
  Object.fromEntries(set.validators.map((v) => [hex(v.address), v.proposerPriority]))

describe('keys and hashes', () => {
  it('ed25519 seed 00..1f: pubkey, address, SimpleValidator and 1-validator set hash', () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => i)
    const { publicKey } = ed25519FromSeed(seed)
    expect(hex(publicKey)).toBe('03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8')
    expect(bytesToBase64(publicKey)).toBe('A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=')
    expect(bytesToUpperHex(validatorAddress(publicKey))).toBe('56475AA75463474C0285DF5DBF2BCAB73DA65135')
    expect(hex(encodeSimpleValidator(publicKey, 10n))).toBe('0a220a2003a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8100a')
    const set = ValidatorSet.fromUpdates([{ pubKey: publicKey, power: 10n }])
    expect(bytesToUpperHex(set.hash())).toBe('389445B50AB87A9E0C25E09D0A66063FEE4ADFD062F622D366B16C5A78B4F938')
  })

  it('the empty set hashes to SHA256("")', () => {
    const set = ValidatorSet.fromUpdates([])
    expect(set.size).toBe(0)
    expect(hex(set.hash())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(() => set.getProposer()).toThrow()
  })
})

describe('proposer selection', () => {
  it('TestProposerSelection1: the 99-proposer sequence', () => {
    const set = ValidatorSet.fromValidators([val('foo', 1000n), val('bar', 300n), val('baz', 330n)])
    expect(set.validators.map((v) => [new TextDecoder().decode(v.address), v.proposerPriority])).toEqual([
      ['foo', -630n],
      ['baz', 330n],
      ['bar', 300n],
    ])
    const seen: string[] = []
    for (let i = 0; i < 99; i++) {
      seen.push(new TextDecoder().decode(set.getProposer().address))
      set.incrementProposerPriority(1)
    }
    expect(seen.join(' ')).toBe(
      'foo baz foo bar foo foo baz foo bar foo foo baz foo foo bar foo baz foo foo bar foo foo baz foo bar foo foo baz foo bar foo ' +
        'foo baz foo foo bar foo baz foo foo bar foo baz foo foo bar foo baz foo foo bar foo baz foo foo foo baz bar foo foo foo baz ' +
        'foo bar foo foo baz foo bar foo foo baz foo bar foo foo baz foo bar foo foo baz foo foo bar foo baz foo foo bar foo baz foo ' +
        'foo bar foo baz foo foo',
    )
  })

  it('TestProposerSelection2: equal powers go round in address order', () => {
    const list = [val(addr(0), 100n), val(addr(1), 100n), val(addr(2), 100n)]
    const set = ValidatorSet.fromValidators(list)
    for (let i = 0; i < 15; i++) {
      expect(set.getProposer().address).toEqual(addr(i % 3))
      set.incrementProposerPriority(1)
    }
  })

  it('TestProposerSelection2: 100/100/400 → addr2, addr0; 100/100/401 → addr2, addr2, addr0', () => {
    let set = ValidatorSet.fromValidators([val(addr(0), 100n), val(addr(1), 100n), val(addr(2), 400n)])
    expect(set.getProposer().address).toEqual(addr(2))
    set.incrementProposerPriority(1)
    expect(set.getProposer().address).toEqual(addr(0))

    set = ValidatorSet.fromValidators([val(addr(0), 100n), val(addr(1), 100n), val(addr(2), 401n)])
    expect(set.getProposer().address).toEqual(addr(2))
    set.incrementProposerPriority(1)
    expect(set.getProposer().address).toEqual(addr(2))
    set.incrementProposerPriority(1)
    expect(set.getProposer().address).toEqual(addr(0))
  })

  it('TestProposerSelection2: powers 4/5/3 over 120 rounds → 40/50/30', () => {
    const set = ValidatorSet.fromValidators([val(addr(0), 4n), val(addr(1), 5n), val(addr(2), 3n)])
    const counts = [0, 0, 0]
    for (let i = 0; i < 120; i++) {
      counts[set.getProposer().address[19]!]!++
      set.incrementProposerPriority(1)
    }
    expect(counts).toEqual([40, 50, 30])
  })

  it('rescales by truncating toward zero, then shifts by the floor of the average', () => {
    const set = ValidatorSet.restore([
      { ...val(addr(0), 1n), proposerPriority: 1001n },
      { ...val(addr(1), 1n), proposerPriority: -999n },
    ])
    set.incrementProposerPriority(1)
    // diff 2000 > 2T = 4 → ratio 500: 1001 → 2, −999 → −1 (not −2); avg floor(1/2) = 0; +1 each; 3 − 2 = 1.
    expect(prios(set)).toEqual({ [hex(addr(0))]: 1n, [hex(addr(1))]: 0n })
    expect(set.getProposer().address).toEqual(addr(0))
  })

  it('times > 1 re-scales once, then increments each time', () => {
    const a = ValidatorSet.fromValidators([val(addr(0), 4n), val(addr(1), 5n), val(addr(2), 3n)])
    const b = a.copy()
    a.incrementProposerPriority(3)
    for (let i = 0; i < 3; i++) b.incrementProposerPriority(1)
    expect(a.getProposer().address).toEqual(b.getProposer().address)
  })

  it('copy is deep and keeps the proposer', () => {
    const set = ValidatorSet.fromValidators([val(addr(0), 4n), val(addr(1), 5n)])
    const c = set.copy()
    c.incrementProposerPriority(1)
    expect(set.getProposer().address).toEqual(addr(1))
    expect(c.getProposer().address).not.toEqual(set.getProposer().address)
    expect(prios(set)).toEqual({ [hex(addr(0))]: 4n, [hex(addr(1))]: -4n })
    const c2 = set.copy()
    expect(c2.proposer).toBe(c2.validators[0])
    expect(c2.getProposer()).toEqual(set.getProposer())
  })
})

describe('updateWithChangeSet', () => {
  const kA = testKey(1)
  const kB = testKey(2)
  const kC = testKey(3)
  const h = (k: { address: Uint8Array }): string => hex(k.address)

  function base(): ValidatorSet {
    // A 10, B 20 → priorities −33 each, shifted to 0, incremented once: A 10, B 20 − 30 = −10.
    return ValidatorSet.fromUpdates([
      { pubKey: kA.pubKey, power: 10n },
      { pubKey: kB.pubKey, power: 20n },
    ])
  }

  it('NewValidatorSet starts every validator at the same priority and increments once', () => {
    expect(prios(base())).toEqual({ [h(kA)]: 10n, [h(kB)]: -10n })
    expect(base().getProposer().address).toEqual(kB.address)
  })

  it('adds a new validator at −(U + U>>3), then centres with a floor average', () => {
    const set = base()
    set.updateWithChangeSet([{ pubKey: kC.pubKey, power: 30n }])
    // C = −(60 + 7) = −67; avg = floor(−67/3) = −23.
    expect(set.validators.map((v) => v.address)).toEqual([kC.address, kB.address, kA.address])
    expect(prios(set)).toEqual({ [h(kA)]: 33n, [h(kB)]: 13n, [h(kC)]: -44n })
    expect(set.totalVotingPower()).toBe(60n)
  })

  it('an update keeps the priority and only changes the power and order', () => {
    const set = base()
    set.updateWithChangeSet([{ pubKey: kC.pubKey, power: 30n }])
    set.updateWithChangeSet([{ pubKey: kA.pubKey, power: 40n }])
    expect(set.validators.map((v) => [v.address, v.votingPower])).toEqual([
      [kA.address, 40n],
      [kC.address, 30n],
      [kB.address, 20n],
    ])
    expect(prios(set)).toEqual({ [h(kA)]: 33n, [h(kB)]: 13n, [h(kC)]: -44n })
  })

  it('power 0 removes a validator', () => {
    const set = base()
    set.updateWithChangeSet([{ pubKey: kC.pubKey, power: 30n }])
    set.updateWithChangeSet([{ pubKey: kA.pubKey, power: 40n }])
    set.updateWithChangeSet([{ pubKey: kB.pubKey, power: 0n }])
    expect(set.size).toBe(2)
    expect(prios(set)).toEqual({ [h(kA)]: 39n, [h(kC)]: -38n })
  })

  it('rejects invalid change sets and leaves the set as it was', () => {
    const set = base()
    const before = snapshot(set)
    expect(() =>
      set.updateWithChangeSet([
        { pubKey: kA.pubKey, power: 0n },
        { pubKey: kB.pubKey, power: 0n },
      ]),
    ).toThrow('applying the validator changes would result in empty set')
    expect(() =>
      set.updateWithChangeSet([
        { pubKey: kC.pubKey, power: 1n },
        { pubKey: kC.pubKey, power: 2n },
      ]),
    ).toThrow(/duplicate entry/)
    expect(() => set.updateWithChangeSet([{ pubKey: kC.pubKey, power: -1n }])).toThrow("voting power can't be negative: -1")
    expect(() => set.updateWithChangeSet([{ pubKey: kC.pubKey, power: 0n }])).toThrow(/failed to find validator [0-9A-F]{40} to remove/)
    expect(() => set.updateWithChangeSet([{ pubKey: kC.pubKey, power: MAX_TOTAL_VOTING_POWER + 1n }])).toThrow(/can't be higher than/)
    expect(() => set.updateWithChangeSet([{ pubKey: kC.pubKey, power: MAX_TOTAL_VOTING_POWER - 10n }])).toThrow(
      /total voting power of resulting valset exceeds max/,
    )
    expect(snapshot(set)).toEqual(before)
    expect(() => ValidatorSet.fromUpdates([{ pubKey: kA.pubKey, power: 0n }])).toThrow(/cannot process validators with voting power 0/)
  })

  it('an empty change set changes nothing', () => {
    const set = base()
    set.updateWithChangeSet([])
    expect(prios(set)).toEqual(prios(base()))
  })
})

describe('restore', () => {
  it('rebuilds a stored set: validators, priorities and the proposer', () => {
    const keys = [testKey(1), testKey(2), testKey(3)]
    const set = ValidatorSet.fromUpdates(keys.map((k, i) => ({ pubKey: k.pubKey, power: BigInt(10 * (i + 1)) })))
    set.incrementProposerPriority(2)
    const restored = ValidatorSet.restore(structuredClone(set.validators), set.proposer?.address)
    expect(restored.validators).toEqual(set.validators)
    expect(restored.getProposer()).toEqual(set.getProposer())
    for (let i = 0; i < 10; i++) {
      set.incrementProposerPriority(1)
      restored.incrementProposerPriority(1)
      expect(restored.getProposer().address).toEqual(set.getProposer().address)
    }
    expect(restored.hash()).toEqual(set.hash())
  })
})
