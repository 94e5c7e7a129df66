/** CometBFT's round steps (`consensus/types/round_state.go` RoundStepType 1–8) and their wire names. */

export const RoundStep = {
  NewHeight: 1,
  NewRound: 2,
  Propose: 3,
  Prevote: 4,
  PrevoteWait: 5,
  Precommit: 6,
  PrecommitWait: 7,
  Commit: 8,
} as const
export type RoundStep = (typeof RoundStep)[keyof typeof RoundStep]

const NAMES = {
  1: 'RoundStepNewHeight',
  2: 'RoundStepNewRound',
  3: 'RoundStepPropose',
  4: 'RoundStepPrevote',
  5: 'RoundStepPrevoteWait',
  6: 'RoundStepPrecommit',
  7: 'RoundStepPrecommitWait',
  8: 'RoundStepCommit',
} as const satisfies Record<RoundStep, string>

/** The name CometBFT puts in events and RPC (`RoundStepPropose`, ...). */
export type RoundStepName = (typeof NAMES)[RoundStep]

export function roundStepName(step: RoundStep): RoundStepName {
  return NAMES[step]
}

export function isRoundStep(n: number): n is RoundStep {
  return Number.isInteger(n) && n >= 1 && n <= 8
}

const STEPS_BY_NAME = new Map(Object.entries(NAMES).map(([step, name]) => [name, Number(step) as RoundStep]))

/** The step of a wire name (`RoundStepPropose` → 3). */
export function roundStepFromName(name: RoundStepName): RoundStep {
  return STEPS_BY_NAME.get(name)!
}
