/**
 * A node whose consensus halts on an unrecoverable error (here: the disk refuses the height's batch) stops
 * and says why, instead of serving `/health` and the EVM JSON-RPC while it commits nothing (issue 27 #5:
 * "never a node that looks healthy and commits nothing"; CometBFT panics in the same place).
 */
import { afterEach, expect, it, vi } from 'vitest'
import { WriteStage } from '../../src/db/write-stage.js'
import { startTestNode, type TestNode } from '../helpers/dev-node.js'

let node: TestNode | undefined

afterEach(async () => {
  vi.restoreAllMocks()
  await node?.destroy()
  node = undefined
})

it('stops its listeners and reports the error once the height cannot be written', async () => {
  node = await startTestNode()
  const { url } = node
  const diskFull = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
  vi.spyOn(WriteStage.prototype, 'write').mockRejectedValue(diskFull)

  // The dev node's empty-block interval brings the next height, whose batch the disk refuses.
  const err = await node.node.halted
  expect(err.message).toMatch(/ENOSPC/)
  await expect(fetch(url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' })).rejects.toThrow()
})
