import { describe, expect, it } from 'vitest'
import { MAX_SIMULATED_BLOCKS, TIME_STEP, planBlocks, type SimBlockInput } from '../../../../src/evm/calls/simulate-chain.js'
import { SimulateCode, SimulateError } from '../../../../src/evm/calls/simulate-errors.js'

const BASE = { number: 100n, time: 1_000n }

function block(number?: bigint, time?: bigint): SimBlockInput {
  return { blockOverrides: number === undefined && time === undefined ? undefined : { number, time }, stateOverrides: [], calls: [] }
}

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn()
  } catch (err) {
    return err instanceof SimulateError ? err.code : undefined
  }
  return undefined
}

describe('planBlocks (the layout of simulated blocks)', () => {
  it('numbers and times follow the base block by one and TIME_STEP seconds', () => {
    const planned = planBlocks(BASE, [block(), block()])
    expect(planned.map((b) => [b.number, b.time])).toEqual([
      [101n, 1_000n + TIME_STEP],
      [102n, 1_000n + 2n * TIME_STEP],
    ])
  })

  it('a gap between numbers is filled with empty blocks, each TIME_STEP after the one before', () => {
    const planned = planBlocks(BASE, [block(103n, 2_000n), block()])
    expect(planned.map((b) => [b.number, b.time, b.calls.length])).toEqual([
      [101n, 1_012n, 0],
      [102n, 1_024n, 0],
      [103n, 2_000n, 0],
      [104n, 2_012n, 0],
    ])
  })

  it('numbers must grow (-38020), times strictly grow (-38021)', () => {
    expect(codeOf(() => planBlocks(BASE, [block(100n)]))).toBe(SimulateCode.blockNumberInvalid)
    expect(codeOf(() => planBlocks(BASE, [block(105n), block(105n)]))).toBe(SimulateCode.blockNumberInvalid)
    expect(codeOf(() => planBlocks(BASE, [block(undefined, 1_000n)]))).toBe(SimulateCode.blockTimestampInvalid)
    expect(codeOf(() => planBlocks(BASE, [block(undefined, 1_050n), block(undefined, 1_050n)]))).toBe(SimulateCode.blockTimestampInvalid)
  })

  it('at most MAX_SIMULATED_BLOCKS blocks, gaps included (-38026)', () => {
    expect(planBlocks(BASE, [block(100n + BigInt(MAX_SIMULATED_BLOCKS))])).toHaveLength(MAX_SIMULATED_BLOCKS)
    expect(codeOf(() => planBlocks(BASE, [block(101n + BigInt(MAX_SIMULATED_BLOCKS))]))).toBe(SimulateCode.clientLimitExceeded)
    expect(
      codeOf(() =>
        planBlocks(
          BASE,
          Array.from({ length: MAX_SIMULATED_BLOCKS + 1 }, () => block()),
        ),
      ),
    ).toBe(SimulateCode.clientLimitExceeded)
  })
})
