import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VM } from '@ethereumjs/vm'
import { encodeTaggedJson } from '../../../src/consensus/tagged-json.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'
import { ADDRESS2, DEV_ADDRESS, DEV_KEY, ETHER, PROPOSER, blockHash, createHarness, sign1559, type Harness } from './helpers.js'

/** The ProcessProposal request of the block the harness finalizes next (same height, time, hash and proposer). */
function proposalOf(h: Harness, txs: Uint8Array[], hash = blockHash(h.height)) {
  return {
    txs,
    proposedLastCommit: { round: 0, votes: [] },
    hash,
    height: h.height,
    time: { seconds: h.time + 2, nanos: 0 },
    nextValidatorsHash: new Uint8Array(32),
    proposerAddress: PROPOSER,
  }
}

/** Counts the transactions the app's consensus VM runs. */
function countExecutions(h: Harness): { count: number } {
  const counter = { count: 0 }
  const vm = (h.app as unknown as { vm: VM }).vm
  vm.events.on('beforeTx', (_tx, resolve) => {
    counter.count++
    resolve?.()
  })
  return counter
}

const transfers = (h: Harness, value: bigint) =>
  [0n, 1n, 2n].map((nonce) => sign1559(h.app.common, DEV_KEY, { nonce, to: ADDRESS2, value: value + nonce }))

describe('optimistic execution (ProcessProposal executes, FinalizeBlock takes the result)', () => {
  let ahead: Harness
  let plain: Harness
  beforeEach(async () => {
    ahead = await createHarness()
    plain = await createHarness()
  })
  afterEach(async () => {
    await ahead.close()
    await plain.close()
  })

  it('executes an accepted proposal once, with the result FinalizeBlock alone gives', async () => {
    const executions = countExecutions(ahead)
    const txs = transfers(ahead, ETHER)
    expect((await ahead.app.processProposal(proposalOf(ahead, txs))).accept).toBe(true)
    const resp = await ahead.finalize(txs)
    expect(executions.count).toBe(3)
    const expected = await plain.finalize(txs)
    expect(bytesToHex(encodeTaggedJson(resp))).toBe(bytesToHex(encodeTaggedJson(expected)))
    const [a, b] = [(await ahead.app.getBlock(1))!, (await plain.app.getBlock(1))!]
    expect(bytesToHex(a.hash)).toBe(bytesToHex(b.hash))
    expect(a.timestamp).toBe(b.timestamp)
  })

  it('executes the decided block from the head state when another block was executed ahead', async () => {
    const proposed = transfers(ahead, ETHER)
    const decided = transfers(ahead, 5n * ETHER)
    expect((await ahead.app.processProposal(proposalOf(ahead, proposed, blockHash(1000)))).accept).toBe(true)
    const resp = await ahead.finalize(decided)
    const expected = await plain.finalize(decided)
    expect(resp.txResults.map((r) => r.code)).toEqual([0, 0, 0])
    expect(bytesToHex(encodeTaggedJson(resp))).toBe(bytesToHex(encodeTaggedJson(expected)))
    expect(await ahead.app.getBalance(hexToBytes(ADDRESS2))).toBe(await plain.app.getBalance(hexToBytes(ADDRESS2)))
    // The next height runs on the decided block's state: nonces 3… are next.
    const next = [sign1559(ahead.app.common, DEV_KEY, { nonce: 3n, to: ADDRESS2, value: 1n })]
    expect((await ahead.finalize(next)).txResults[0]!.code).toBe(0)
    expect(await ahead.app.getNonce(hexToBytes(DEV_ADDRESS))).toBe(4n)
  })

  it('runs only the first proposal of a height ahead, and none once the height is executed', async () => {
    const executions = countExecutions(ahead)
    const first = transfers(ahead, ETHER)
    const second = transfers(ahead, 2n * ETHER)
    await ahead.app.processProposal(proposalOf(ahead, first, blockHash(1000)))
    await ahead.app.processProposal(proposalOf(ahead, second, blockHash(1001)))
    const resp = await ahead.finalize(second)
    // The first ran ahead (3), the second was executed by FinalizeBlock (3), never ahead.
    expect(executions.count).toBe(6)
    expect(bytesToHex(encodeTaggedJson(resp))).toBe(bytesToHex(encodeTaggedJson(await plain.finalize(second))))
  })
})
