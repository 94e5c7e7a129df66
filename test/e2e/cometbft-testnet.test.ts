/**
 * Four validators under a stock CometBFT: the homes of `nodectl testnet init-files --engine cometbft`,
 * each run as `cometbft start --home` and `nodectl start --abci --home` with no address flag (the homes
 * name every port, proxy_app included). A transaction sent to one node's EVM JSON-RPC is mined and seen
 * by all four; every height has the same app hash on every CometBFT and the same EVM block (state root
 * and header hash) on every nodectl; with one validator's two processes gone, blocks continue.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JsonRpcProvider, Wallet } from 'ethers'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { TESTNET_PORTS_PER_NODE, initTestnetFiles, testnetPort } from '../../src/config/testnet.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { CometbftPair } from '../helpers/cometbft-pair.js'
import { describeWithCometbft } from '../helpers/cometbft.js'
import { rpc, waitFor } from '../helpers/dev-node.js'
import { pickPortBlock } from '../helpers/ports.js'

const VALIDATORS = 4
/** CometBFT's default timeouts: about a block a second once the four have met. */
const WAIT_MS = 90_000
const [SENDER, RECIPIENT] = devAccounts(2)

describeWithCometbft('four validators under CometBFT, each with nodectl --abci', (bin) => {
  let dir: string
  let pairs: CometbftPair[] = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-comet-testnet-'))
    const startingPort = await pickPortBlock(VALIDATORS * TESTNET_PORTS_PER_NODE)
    const testnet = await initTestnetFiles({ outputDir: dir, validators: VALIDATORS, startingPort, engine: 'cometbft' })
    pairs = testnet.nodes.map(
      (node, i) =>
        new CometbftPair(
          bin,
          node.home,
          {
            abci: testnetPort(startingPort, i, 'abci'),
            rpc: testnetPort(startingPort, i, 'cometRpc'),
            p2p: testnetPort(startingPort, i, 'p2p'),
          },
          { portsFromHome: true },
        ),
    )
    await Promise.all(pairs.map((p) => p.start()))
  }, 120_000)

  afterAll(async () => {
    await Promise.all(pairs.map((p) => p.stop()))
    await rm(dir, { recursive: true, force: true })
  })

  const report = (): string => pairs.map((p, i) => `=== node${i}\n${p.report().slice(-3000)}`).join('\n')

  it('commits a transaction every node sees, with one app hash and one EVM block per height everywhere', async () => {
    await waitFor(
      async () => (await Promise.all(pairs.map((p) => p.cometHeight()))).every((h) => h >= 2),
      WAIT_MS,
      `height 2 everywhere\n${report()}`,
    )
    const provider = new JsonRpcProvider(pairs[0]!.evmUrl, undefined, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 })
    try {
      const sent = await new Wallet(SENDER!.privateKey, provider).sendTransaction({ to: RECIPIENT!.address, value: 12345n })
      const receipt = (await sent.wait(1, WAIT_MS))!
      expect(receipt.status).toBe(1)
      const last = receipt.blockNumber
      // Every application commits the block; the last one also needs the next height for its app hash.
      await waitFor(
        async () => (await Promise.all(pairs.map((p) => p.cometHeight()))).every((h) => h > last),
        WAIT_MS,
        `height ${last + 1} everywhere`,
      )
      for (const pair of pairs) {
        const seen = await rpc<{ blockHash: string } | null>(pair.evmUrl, 'eth_getTransactionReceipt', [receipt.hash])
        expect(seen.result?.blockHash).toBe(receipt.blockHash)
      }
      for (let height = 1; height <= last; height++) {
        const tag = `0x${height.toString(16)}`
        const blocks = await Promise.all(
          pairs.map(async (p) => (await rpc<{ hash: string; stateRoot: string }>(p.evmUrl, 'eth_getBlockByNumber', [tag, false])).result!),
        )
        expect(new Set(blocks.map((b) => b.hash)).size, `EVM hash of ${height}`).toBe(1)
        expect(new Set(blocks.map((b) => b.stateRoot)).size, `state root of ${height}`).toBe(1)
        const appHashes = await Promise.all(
          pairs.map(async (p) => {
            const block = (await (await fetch(`${p.cometUrl}/block?height=${height + 1}`)).json()) as {
              result: { block: { header: { app_hash: string } } }
            }
            return block.result.block.header.app_hash
          }),
        )
        expect(new Set(appHashes).size, `app hash after ${height}`).toBe(1)
        expect(`0x${appHashes[0]!.toLowerCase()}`).toBe(blocks[0]!.stateRoot)
      }
    } finally {
      provider.destroy()
    }
  }, 180_000)

  it('keeps committing with one validator (both of its processes) gone', async () => {
    const down = pairs[VALIDATORS - 1]!
    await down.kill('comet')
    await down.kill('app')
    const from = await pairs[0]!.cometHeight()
    await waitFor(
      async () => (await Promise.all(pairs.slice(0, -1).map((p) => p.cometHeight()))).every((h) => h >= from + 2),
      WAIT_MS,
      `two more heights on the three left\n${report()}`,
    )
  }, 180_000)
})
