/**
 * anvil_nodeInfo, anvil_metadata and hardhat_metadata on a dev chain (docs/dev-chain.md, "Node
 * information"): Anvil's and Hardhat's shapes, with values that agree with the EVM view of the same block.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'

interface BlockJson {
  number: string
  hash: string
  timestamp: string
  gasLimit: string
}

const HASH = /^0x[0-9a-f]{64}$/
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/

describe('dev node information', () => {
  let t: TestNode
  const block = async (n: number | string): Promise<BlockJson> =>
    (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', [typeof n === 'number' ? `0x${n.toString(16)}` : n, false])).result!

  beforeAll(async () => {
    t = await startTestNode()
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it("anvil_nodeInfo: Anvil's NodeInfo, naming a block the EVM view shows the same", async () => {
    const info = (await rpc<Record<string, unknown>>(t.url, 'anvil_nodeInfo')).result!
    expect(info).toEqual({
      currentBlockNumber: expect.stringMatching(QUANTITY),
      currentBlockTimestamp: expect.any(Number),
      currentBlockHash: expect.stringMatching(HASH),
      hardFork: 'Cancun',
      transactionOrder: 'fees',
      environment: {
        baseFee: expect.stringMatching(QUANTITY),
        chainId: 31337,
        gasLimit: expect.stringMatching(QUANTITY),
        gasPrice: expect.stringMatching(QUANTITY),
      },
      forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
    })
    const named = await block(info.currentBlockNumber as string)
    expect(named.hash).toBe(info.currentBlockHash)
    expect(Number(named.timestamp)).toBe(info.currentBlockTimestamp)
    expect((info.environment as { gasLimit: string }).gasLimit).toBe(named.gasLimit)
  })

  it("anvil_metadata and hardhat_metadata: each node's shape, one instance id, web3_clientVersion's name", async () => {
    const clientVersion = (await rpc<string>(t.url, 'web3_clientVersion')).result
    const anvil = (await rpc<Record<string, unknown>>(t.url, 'anvil_metadata')).result!
    expect(anvil).toEqual({
      clientVersion,
      chainId: 31337,
      instanceId: expect.stringMatching(HASH),
      latestBlockNumber: expect.any(Number),
      latestBlockHash: expect.stringMatching(HASH),
      forkedNetwork: null,
      snapshots: {},
    })
    expect((await block(anvil.latestBlockNumber as number)).hash).toBe(anvil.latestBlockHash)

    const hardhat = (await rpc<Record<string, unknown>>(t.url, 'hardhat_metadata')).result!
    expect(hardhat).toEqual({
      clientVersion,
      chainId: 31337,
      instanceId: anvil.instanceId,
      latestBlockNumber: expect.any(Number),
      latestBlockHash: expect.stringMatching(HASH),
    })
  })
})

describe("web3_clientVersion as test suites' helpers want it ([json-rpc] client-identity)", () => {
  // Hardhat's network helpers and hardhat-predeploy refuse a node whose lower-cased clientVersion does not
  // start with hardhat, anvil or zksync.
  for (const [identity, prefix] of [
    ['anvil', 'anvil/v'],
    ['hardhat', 'hardhatnetwork/'],
  ] as const) {
    it(`${identity}: the name those helpers accept, still naming nodectl, in anvil_metadata too`, async () => {
      const t = await startTestNode({ flags: { 'json-rpc.client-identity': identity } })
      try {
        const version = (await rpc<string>(t.url, 'web3_clientVersion')).result!
        expect(version.toLowerCase().startsWith(prefix)).toBe(true)
        expect(version).toContain('nodectl')
        expect((await rpc<{ clientVersion: string }>(t.url, 'anvil_metadata')).result!.clientVersion).toBe(version)
      } finally {
        await t.destroy()
      }
    })
  }

  it('is refused on a node that is not a dev chain, naming the flag', async () => {
    const home = await mkdtemp(join(tmpdir(), 'nodectl-identity-'))
    try {
      await expect(startTestNode({ home, dev: false, flags: { 'json-rpc.client-identity': 'anvil' } })).rejects.toThrow(
        /--json-rpc\.client-identity: anvil and hardhat are allowed on a dev chain only/,
      )
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })
})
