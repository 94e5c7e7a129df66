/**
 * `min-retain-blocks` under a stock CometBFT (`nodectl start --abci`): the application's Commit returns
 * the retain height and CometBFT prunes its own block store to it, so its /status base moves and its RPC
 * answers a pruned height with "height X is not available, lowest height is Y" (through cosmjs), while
 * the kept heights and nodectl's EVM side answer as before (below the BLOCKHASH window nothing of the
 * EVM history is pruned).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Comet38Client } from '@cosmjs/tendermint-rpc'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { defaultNodeSettings } from '../../src/config/defaults.js'
import { initHome } from '../../src/config/init-home.js'
import { CometbftPair } from '../helpers/cometbft-pair.js'
import { describeWithCometbft } from '../helpers/cometbft.js'
import { rpc, waitFor } from '../helpers/dev-node.js'
import { pickPortBlock } from '../helpers/ports.js'

const KEEP = 5

interface CometSyncInfo {
  earliest_block_height: string
  latest_block_height: string
}
/** Bound on waits for heights under CometBFT's timeouts. */
const WAIT_MS = 60_000

describeWithCometbft('min-retain-blocks under a stock CometBFT', (bin) => {
  let dir: string
  let pair: CometbftPair

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-abci-retain-'))
    const settings = defaultNodeSettings('abci0')
    settings.consensus.timeoutCommit = 100
    settings.minRetainBlocks = KEEP
    const home = await initHome({ home: join(dir, 'home'), moniker: 'abci0', settings, accounts: [] })
    // Evidence may name only the last 2 heights: min-retain-blocks alone decides the retain height.
    const path = join(home.home, 'config', 'genesis.json')
    const genesis = JSON.parse(await readFile(path, 'utf8')) as { consensus_params: { evidence: { max_age_num_blocks: string } } }
    genesis.consensus_params.evidence.max_age_num_blocks = '2'
    await writeFile(path, JSON.stringify(genesis, null, 2))
    const port = await pickPortBlock(3)
    pair = new CometbftPair(bin, home.home, { abci: port, rpc: port + 1, p2p: port + 2 })
    await pair.start()
  }, 120_000)

  afterAll(async () => {
    await pair?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it("CometBFT prunes its block store to the application's retain height", async () => {
    const client = await Comet38Client.connect(pair.cometUrl)
    try {
      // Polled through the wire: cosmjs refuses a /status without blocks yet (an empty latest hash).
      const sync = await waitFor(
        async () => {
          const s = (await (await fetch(`${pair.cometUrl}/status`)).json()) as { result: { sync_info: CometSyncInfo } }
          return Number(s.result.sync_info.earliest_block_height) > KEEP ? s.result.sync_info : undefined
        },
        WAIT_MS,
        'a pruned base',
      )
      const base = Number(sync.earliest_block_height)
      // retain = height - KEEP + 1 at the height CometBFT last pruned after.
      expect(Number(sync.latest_block_height) - base + 1).toBeGreaterThanOrEqual(KEEP)
      expect((await client.status()).syncInfo.earliestBlockHeight).toBeGreaterThanOrEqual(base)
      await expect(client.block(1)).rejects.toThrow(/height 1 is not available, lowest height is \d+/)
      await expect(client.blockResults(1)).rejects.toThrow(/height 1 is not available, lowest height is \d+/)
      expect((await client.block(base)).block.header.height).toBe(base)
      // nodectl's EVM side keeps its BLOCKHASH window: block 1 is still there.
      const evmBlock = (await rpc<{ number: string }>(pair.evmUrl, 'eth_getBlockByNumber', ['0x1', false])).result
      expect(evmBlock?.number).toBe('0x1')
    } finally {
      client.disconnect()
    }
  }, 120_000)
})
