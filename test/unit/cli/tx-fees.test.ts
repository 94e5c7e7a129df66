import { describe, expect, it } from 'vitest'
import { bumpFee, fillFees, type FeeRequest } from '../../../src/cli/tx-fees.js'
import type { HttpRpcClient } from '../../../src/rpc/client/index.js'

/** A node answering the fee methods: a base fee (none for a legacy chain), a suggested tip and gas price. */
function nodeWith(baseFee: bigint | undefined, tip = 100n, gasPrice = 1000n): HttpRpcClient {
  const answers: Record<string, unknown> = {
    eth_getBlockByNumber: baseFee === undefined ? {} : { baseFeePerGas: `0x${baseFee.toString(16)}` },
    eth_maxPriorityFeePerGas: `0x${tip.toString(16)}`,
    eth_gasPrice: `0x${gasPrice.toString(16)}`,
  }
  return { call: async (method: string) => answers[method] } as unknown as HttpRpcClient
}

const fill = (node: HttpRpcClient, req: FeeRequest, replaced?: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) =>
  fillFees(node, req, replaced && { hash: '0x01', ...replaced })

describe('transaction fees', () => {
  it("bumps a fee by geth's 10%, rounded up, and always by at least 1 wei", () => {
    expect([0n, 1n, 9n, 10n, 11n, 100n, 1_000_000_001n].map(bumpFee)).toEqual([1n, 2n, 10n, 11n, 13n, 110n, 1_100_000_002n])
  })

  it('fills EIP-1559 fees as geth and keeps the given ones, as cast reads --gas-price and --priority-gas-price', async () => {
    const node = nodeWith(1000n)
    expect(await fill(node, {})).toEqual({ type: 'eip1559', maxFeePerGas: 2100n, maxPriorityFeePerGas: 100n })
    expect(await fill(node, { gasPrice: 5000n })).toEqual({ type: 'eip1559', maxFeePerGas: 5000n, maxPriorityFeePerGas: 100n })
    expect(await fill(node, { gasPrice: 50n })).toEqual({ type: 'eip1559', maxFeePerGas: 50n, maxPriorityFeePerGas: 50n })
    expect(await fill(node, { priorityFee: 7n })).toEqual({ type: 'eip1559', maxFeePerGas: 2007n, maxPriorityFeePerGas: 7n })
    await expect(fill(node, { gasPrice: 5n, priorityFee: 7n })).rejects.toThrow(
      '--priority-gas-price (7 wei) is above the fee cap --gas-price (5 wei)',
    )
    expect(await fill(node, { legacy: true })).toEqual({ type: 'legacy', gasPrice: 1000n })
    await expect(fill(node, { legacy: true, priorityFee: 1n })).rejects.toThrow(/leave it out with --legacy/)
    await expect(fill(nodeWith(undefined), { priorityFee: 1n })).rejects.toThrow(/this chain has no base fee/)
    expect(await fill(nodeWith(undefined), { gasPrice: 3n })).toEqual({ type: 'legacy', gasPrice: 3n })
  })

  it('raises each fee of a replacement to +10% of the pending one when the filled one is lower', async () => {
    const node = nodeWith(1000n)
    // the filled fees (2100 / 100) are below the bumped ones
    expect(await fill(node, {}, { maxFeePerGas: 3000n, maxPriorityFeePerGas: 500n })).toEqual({
      type: 'eip1559',
      maxFeePerGas: 3300n,
      maxPriorityFeePerGas: 550n,
    })
    // above them: the filled ones stay
    expect(await fill(node, {}, { maxFeePerGas: 10n, maxPriorityFeePerGas: 10n })).toEqual({
      type: 'eip1559',
      maxFeePerGas: 2100n,
      maxPriorityFeePerGas: 100n,
    })
    // a legacy price is cap and tip at once: it beats the higher, the cap
    expect(await fill(node, { legacy: true }, { maxFeePerGas: 3000n, maxPriorityFeePerGas: 500n })).toEqual({
      type: 'legacy',
      gasPrice: 3300n,
    })
  })
})
