/**
 * anvil_nodeInfo, anvil_metadata and hardhat_metadata on a dev chain (docs/dev-chain.md, "Node
 * information"): Anvil's and Hardhat's shapes, with values that agree with the EVM view of the same block.
 */
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
