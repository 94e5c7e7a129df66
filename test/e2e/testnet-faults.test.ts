/**
 * The faults BFT promises to survive, on four validators run as real `nodectl start` processes over
 * loopback (the built binary; skipped when dist/ is missing): one validator killed → blocks continue; a
 * second killed → no block commits (rounds time out without +2/3); restarted → the chain resumes; the
 * first restarted after the others moved on → it catches up by block sync and votes again; one paused
 * with SIGSTOP while the others commit 25 blocks → it resumes and catches up; one validator that
 * double-signs (the hidden `--unsafe-double-sign-at` flag) → its evidence is committed. Throughout, every
 * node has the same block at every height and no transaction a node acknowledged is lost.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { BlockJson } from '../../src/api/eth/format.js'
import { ROOT } from '../helpers/cli.js'
import { hashHeaderJson } from '../helpers/eth-header.js'
import { TestnetProcesses } from '../helpers/testnet-processes.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/start.js'))
if (!BUILT) console.warn('test/e2e/testnet-faults.test.ts skipped: dist/commands/start.js is missing; run `npm run build` first')

/** Shorter than CometBFT's defaults so a round with a dead proposer costs a second, not three. */
const ENV = {
  NODECTL_CONSENSUS_TIMEOUT_PROPOSE: '1s',
  NODECTL_CONSENSUS_TIMEOUT_COMMIT: '300ms',
  NODECTL_LOG_LEVEL: 'info',
}
/** node3 signs one conflicting prevote from this height on. */
const DOUBLE_SIGN_AT = 4
const BYZANTINE = 3

/** What the test reads of `consensus_state`. */
interface ConsensusState {
  round_state: { 'height/round/step': string; height_vote_set: { prevotes_bit_array: string }[] }
}

describe.skipIf(!BUILT)('four validators as processes: crashes, a halt, a pause, a double-signer', () => {
  let dir: string
  let net: TestnetProcesses
  /** Hashes of every transaction a node accepted. */
  const acknowledged: string[] = []
  const nonces = new Map<number, number>()
  let evmChainId = 0n

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-faults-'))
    net = await TestnetProcesses.create(dir, 4, ENV)
    await Promise.all([0, 1, 2, 3].map((i) => net.start(i, i === BYZANTINE ? ['--unsafe-double-sign-at', String(DOUBLE_SIGN_AT)] : [])))
    await net.watch(0)
    evmChainId = BigInt(await net.rpc<string>(0, 'eth_chainId'))
  }, 120_000)

  afterAll(async () => {
    await net?.stopAll()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  /** Sends a value transfer from dev account `account` through node `i`; records its hash once accepted. */
  async function sendTx(i: number, account: number): Promise<void> {
    const nonce = nonces.get(account) ?? 0
    const raw = await new Wallet(devAccounts()[account]!.privateKey).signTransaction({
      to: devAccounts()[9]!.address,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1n,
      nonce,
      chainId: evmChainId,
      type: 2,
    })
    acknowledged.push(await net.rpc<string>(i, 'eth_sendRawTransaction', [raw]))
    nonces.set(account, nonce + 1)
  }

  const atLeast = (i: number, height: number) => async () => (await net.height(i)) >= height
  const caughtUpWith0 = (i: number) => async () => (await net.height(i)) >= (await net.height(0))

  it('keeps committing with one validator down, halts with two, and resumes when one is back', async () => {
    await net.waitUntil(atLeast(0, 3), 'node0 at height 3')
    await sendTx(1, 1)

    await net.kill(2)
    const afterFirstKill = await net.height(0)
    await sendTx(0, 2)
    await net.waitUntil(atLeast(0, afterFirstKill + 3), 'three more blocks with node2 down')

    await net.kill(1)
    // With half the power down no height commits: node0 holds the prevotes of both live validators for the
    // next height (all there can be) and sits in that round without +2/3.
    const stuck = await net.height(0)
    await sendTx(0, 3)
    await net.waitUntil(async () => {
      const { round_state: rs } = await net.comet<ConsensusState>(0, 'consensus_state')
      return rs['height/round/step'].startsWith(`${stuck + 1}/`) && rs.height_vote_set.some((r) => r.prevotes_bit_array.includes(' 20/40 '))
    }, 'both live validators prevoted at the next height')
    expect(await net.height(0)).toBe(stuck)
    expect(await net.height(BYZANTINE)).toBe(stuck)

    await net.start(1)
    await net.waitUntil(atLeast(0, stuck + 2), 'the chain resumes with node1 back')
  }, 240_000)

  it('a validator restarted after the others moved on catches up by block sync and votes again', async () => {
    const behind = await net.height(0)
    await net.start(2)
    await sendTx(2, 4)
    await net.waitUntil(caughtUpWith0(2), 'node2 caught up')
    expect(net.nodes[2]!.output.some((l) => l.includes('block sync started'))).toBe(true)
    expect(await net.height(2)).toBeGreaterThanOrEqual(behind)
    // Back in consensus, node2's precommit is in the commits of the blocks that follow.
    const from = await net.height(0)
    await net.waitUntil(atLeast(0, from + 4), 'four more blocks')
    const signers = await Promise.all(
      [from + 1, from + 2, from + 3].map(async (h) => {
        const commit = await net.comet<{
          signed_header: { commit: { signatures: { block_id_flag: number; validator_address: string }[] } }
        }>(0, 'commit', {
          height: String(h),
        })
        const node2 = net.testnet.nodes[2]!.validatorAddress
        return commit.signed_header.commit.signatures.some((s) => s.validator_address === node2 && s.block_id_flag === 2)
      }),
    )
    expect(signers.some(Boolean)).toBe(true)
  }, 240_000)

  it('a validator paused with SIGSTOP while the others commit 25 blocks resumes and catches up', async () => {
    net.pause(1)
    const pausedAt = await net.height(0)
    await sendTx(3, 5)
    await net.waitUntil(atLeast(0, pausedAt + 25), '25 blocks without node1')
    net.resume(1)
    await net.waitUntil(caughtUpWith0(1), 'node1 caught up after SIGCONT')
    expect(net.nodes[1]!.output.filter((l) => l.includes('block sync started')).length).toBeGreaterThan(0)
  }, 240_000)

  it('every node has the same block at every height, and every acknowledged transaction is committed', async () => {
    const top = Math.min(...(await Promise.all([0, 1, 2, 3].map((i) => net.height(i)))))
    for (let h = 1; h <= top; h++) {
      const blocks = await Promise.all(
        [0, 1, 2, 3].map((i) => net.rpc<BlockJson>(i, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])),
      )
      const hashes = blocks.map((b) => b.hash)
      expect(new Set(hashes).size, `block ${h}: ${hashes.join(' ')}`).toBe(1)
      // An Ethereum header hash, whoever proposed the block and whichever nodes were down.
      expect(hashHeaderJson(blocks[0]!)).toBe(hashes[0])
    }
    await net.waitUntil(async () => {
      const receipts = await Promise.all(acknowledged.map((hash) => net.rpc<unknown>(0, 'eth_getTransactionReceipt', [hash])))
      return receipts.every((r) => r !== null)
    }, 'every acknowledged transaction committed')
    for (const i of [1, 2, 3])
      for (const hash of acknowledged)
        expect(await net.rpc<{ status: string }>(i, 'eth_getTransactionReceipt', [hash])).toMatchObject({ status: '0x1' })
  }, 240_000)

  it('the double-signing validator is caught: its DuplicateVoteEvidence is committed', async () => {
    const top = await net.height(0)
    const byzantine = net.testnet.nodes[BYZANTINE]!.validatorAddress
    const found: { height: number; validator: string }[] = []
    for (let h = DOUBLE_SIGN_AT; h <= top; h++) {
      const block = await net.comet<{ block: { evidence: { evidence: { value: { vote_a: { validator_address: string } } }[] | null } } }>(
        0,
        'block',
        { height: String(h) },
      )
      for (const ev of block.block.evidence.evidence ?? []) found.push({ height: h, validator: ev.value.vote_a.validator_address })
    }
    expect(found.length).toBeGreaterThan(0)
    expect(found.every((f) => f.validator === byzantine)).toBe(true)
  }, 240_000)
})
