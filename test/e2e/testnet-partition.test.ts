/**
 * A 2|2 network partition of four validators run as real `nodectl start` processes (the built binary; skipped
 * when dist/ is missing), each in a Linux network namespace of its own (test/helpers/network-namespaces.ts;
 * skipped where this process cannot create one: not root, no iproute2, not Linux). Blackhole routes cut
 * {node0, node1} off from {node2, node3}: neither half commits a block (each holds the prevotes of its two
 * validators, half the power, short of +2/3, and its height stays); the routes deleted, the chain resumes; at
 * the end every node has the same block at every height.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { canCreateNetworkNamespaces, NamespaceNetwork } from '../helpers/network-namespaces.js'
import { TestnetProcesses } from '../helpers/testnet-processes.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/start.js'))
const NAMESPACES = canCreateNetworkNamespaces()
if (!BUILT) console.warn('test/e2e/testnet-partition.test.ts skipped: dist/commands/start.js is missing; run `npm run build` first')
if (!NAMESPACES) console.warn('test/e2e/testnet-partition.test.ts skipped: cannot create network namespaces here (needs root and iproute2)')

/** Shorter than CometBFT's defaults, as in testnet-faults.test.ts. */
const ENV = {
  NODECTL_CONSENSUS_TIMEOUT_PROPOSE: '1s',
  NODECTL_CONSENSUS_TIMEOUT_COMMIT: '300ms',
  NODECTL_LOG_LEVEL: 'info',
}
const NODES = [0, 1, 2, 3]
const HALVES = [
  [0, 1],
  [2, 3],
]
/**
 * After healing, a node that dropped its peers during the partition redials them with back-off (1 s doubling,
 * p2p-node.ts) and a kept connection waits for TCP's retransmission timer: some seconds, rarely more.
 */
const HEAL_TIMEOUT_MS = 120_000

/** What the test reads of `consensus_state`. */
interface ConsensusState {
  round_state: {
    'height/round/step': string
    height_vote_set: { round: number; prevotes_bit_array: string; precommits_bit_array: string }[]
  }
}

/** The validators' marks of a vote bit array: `BA{4:_xx_} 20/40 = 0.50` → `_xx_`. */
function bitsOf(bitArray: string): string {
  return /^BA\{\d+:([_x]*)\}/.exec(bitArray)?.[1] ?? ''
}

describe.skipIf(!BUILT || !NAMESPACES)('four validators in network namespaces: a 2|2 partition and its healing', () => {
  let dir: string
  let network: NamespaceNetwork | undefined
  let net: TestnetProcesses | undefined
  /** Height of each node while partitioned. */
  const stuck = new Map<number, number>()

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-partition-'))
    const namespaces = await NamespaceNetwork.create(NODES.length)
    network = namespaces
    net = await TestnetProcesses.create(dir, NODES.length, ENV, {
      hostOf: (i) => namespaces.hostOf(i),
      prefixOf: (i) => namespaces.execPrefix(i),
    })
    const testnet = net
    await Promise.all(NODES.map((i) => testnet.start(i)))
    // Every node watched: a half's last prevote is an event only on the nodes of that half.
    for (const i of NODES) await testnet.watch(i)
  }, 120_000)

  afterAll(async () => {
    await net?.stopAll()
    await network?.destroy()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const atLeast = (height: number) => async () => (await Promise.all(NODES.map((i) => net!.height(i)))).every((h) => h >= height)

  /**
   * True once every node of `half` is at one height H and its current round at H+1 holds all the votes the
   * half can cast there, with no +2/3 of anything, so that no timeout moves the round on and no block
   * commits: either the prevotes are exactly the half's two (20/40: nobody precommits), or the half's two
   * prevotes are in (a third from the other side, sent before the cut, may have made +2/3 prevotes) and the
   * precommits are exactly the half's two (20/40). `half` is given by its marks in a vote bit array
   * (`x_x_`: the first and third validators). Records H in `stuck`.
   */
  async function halted(half: number[], marks: string): Promise<boolean> {
    const heights = await Promise.all(half.map((i) => net!.height(i)))
    if (new Set(heights).size !== 1) return false
    const height = heights[0]!
    const covers = (bits: string): boolean => [...marks].every((mark, k) => mark !== 'x' || bits[k] === 'x')
    for (const i of half) {
      const { round_state: rs } = await net!.comet<ConsensusState>(i, 'consensus_state')
      const [h, round] = rs['height/round/step'].split('/').map(Number)
      const votes = rs.height_vote_set.find((r) => r.round === round)
      if (h !== height + 1 || !votes) return false
      const prevotes = bitsOf(votes.prevotes_bit_array)
      if (!covers(prevotes) || (prevotes !== marks && bitsOf(votes.precommits_bit_array) !== marks)) return false
    }
    for (const i of half) stuck.set(i, height)
    return true
  }

  it('commits across the namespaces', async () => {
    await net!.waitUntil(atLeast(3), 'every node at height 3')
  }, 60_000)

  it('partitioned 2|2, neither half commits a block', async () => {
    const { validators } = await net!.comet<{ validators: { address: string }[] }>(0, 'validators')
    // A half's marks in a vote bit array: its validators' positions in the validator set.
    const marksOf = (half: number[]): string =>
      validators.map((v) => (half.some((i) => net!.testnet.nodes[i]!.validatorAddress === v.address) ? 'x' : '_')).join('')

    await network!.partition(HALVES)
    await Promise.all(
      HALVES.map((half) => net!.waitUntil(() => halted(half, marksOf(half)), `nodes ${half.join(' and ')} halted at the next height`)),
    )
    for (const i of NODES) expect(await net!.height(i), `node${i}`).toBe(stuck.get(i))
  }, 90_000)

  it('healed, the chain resumes', async () => {
    const top = Math.max(...(await Promise.all(NODES.map((i) => net!.height(i)))))
    await network!.heal()
    await net!.waitUntil(atLeast(top + 2), `every node two blocks past height ${top}`, HEAL_TIMEOUT_MS)
  }, 150_000)

  it('every node has the same block at every height', async () => {
    const top = Math.min(...(await Promise.all(NODES.map((i) => net!.height(i)))))
    for (let h = 1; h <= top; h++) {
      const hashes = await Promise.all(
        NODES.map(async (i) => (await net!.rpc<{ hash: string }>(i, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).hash),
      )
      expect(new Set(hashes).size, `block ${h}: ${hashes.join(' ')}`).toBe(1)
    }
  }, 60_000)
})
