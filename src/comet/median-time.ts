/** BFT time (v0.38 `state.MedianTime` + `cmttime.WeightedMedian`): a block's time after the initial height. */
import { compareTime, GO_ZERO_TIME, type Timestamp } from '../utils/time.js'
import type { Commit, Validator } from './types.js'
import { BlockIDFlag } from '../abci/types.js'

/** What the median reads of the set that signed the commit (a `ValidatorSet` is one): each signer by address. */
export interface SignerLookup {
  getByAddress(address: Uint8Array): { validator: Validator } | undefined
}

/**
 * Weighted median of the commit's non-ABSENT signature times (COMMIT and NIL), each weighted by its
 * validator's power in `validators` (the set that signed the commit). Go zero time when nothing counts.
 */
export function medianTime(commit: Commit, validators: SignerLookup): Timestamp {
  const weighted: { time: Timestamp; weight: bigint }[] = []
  let total = 0n
  for (const sig of commit.signatures) {
    if (sig.blockIdFlag === BlockIDFlag.Absent) continue
    const found = validators.getByAddress(sig.validatorAddress)
    if (!found) continue
    total += found.validator.votingPower
    weighted.push({ time: sig.timestamp, weight: found.validator.votingPower })
  }
  weighted.sort((a, b) => compareTime(a.time, b.time))
  let median = total / 2n
  for (const w of weighted) {
    if (median <= w.weight) return { ...w.time }
    median -= w.weight
  }
  return { ...GO_ZERO_TIME }
}
