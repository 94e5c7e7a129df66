import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BlockJson } from '../../src/api/eth/format.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'

describe('dev node boots', () => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode()
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('answers eth_chainId and produces blocks', async () => {
    expect((await rpc(t.url, 'eth_chainId')).result).toBe('0x7a69')
    await waitFor(async () => Number((await rpc(t.url, 'eth_blockNumber')).result) >= 2, 20_000, 'height 2')
    const block = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x1', false])).result!
    expect(block.number).toBe('0x1')
    const genesis = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x0', false])).result!
    expect(block.parentHash).toBe(genesis.hash)
  })
})
