/**
 * State sync on our engine, as real `nodectl start` processes (the built binary; skipped when dist/ is
 * missing): four validators take a snapshot every SNAPSHOT_INTERVAL heights; once they are 2,000 heights in,
 * a fifth node with an empty home and `[statesync]` pointing at two validators' consensus RPC joins: it
 * verifies a header from the trusted one with the light client, restores the 2,000 snapshot from its peers,
 * block-syncs the rest and follows consensus. Three of the validators serve every chunk corrupted (the
 * hidden `--unsafe-corrupt-snapshot-chunk` flag): the application refuses those chunks and their senders,
 * and the chunks are fetched from the honest one. The time from the joiner's start to following consensus
 * is printed. Below the snapshot the joiner answers as a node whose history was pruned, where its block
 * store begins.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { ROOT } from '../helpers/cli.js'
import { expectHistoryFrom } from '../helpers/restored-history.js'
import { TestnetProcesses } from '../helpers/testnet-processes.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/start.js'))
if (!BUILT) console.warn('test/e2e/testnet-state-sync.test.ts skipped: dist/commands/start.js is missing; run `npm run build` first')

/**
 * How far in the chain is when the node joins: the 2,000 with NODECTL_TEST_STATE_SYNC_HEIGHT=2000. Four
 * processes on a shared 2-core machine commit about 3 heights a second, so the default is smaller to keep the
 * suite fast; the mechanism is the same at any height.
 */
const TARGET_HEIGHT = Number(process.env.NODECTL_TEST_STATE_SYNC_HEIGHT ?? 200)
const SNAPSHOT_INTERVAL = TARGET_HEIGHT / 4
/** The header the joiner trusts: a little before the snapshot it will restore. */
const TRUST_HEIGHT = TARGET_HEIGHT - Math.floor(SNAPSHOT_INTERVAL / 2)
const JOINER = 4
const HONEST = 0
/** Every chunk index a small chain's snapshot can have. */
const CORRUPT_CHUNKS = Array.from({ length: 16 }, (_, i) => ['--unsafe-corrupt-snapshot-chunk', String(i)]).flat()
const [SENDER] = devAccounts(1)
const RECIPIENT = '0x00000000000000000000000000000000000a11ce'

/**
 * Blocks as fast as four processes can commit them: no wait after a commit. Every snapshot is kept: on a
 * quiet machine the chain makes dozens of heights a second, so the two most recent would be gone before the
 * joiner fetched them (it would then give them up for newer ones, as fleeting).
 */
const ENV = {
  NODECTL_CONSENSUS_TIMEOUT_COMMIT: '0s',
  NODECTL_CONSENSUS_SKIP_TIMEOUT_COMMIT: 'true',
  NODECTL_STATE_SYNC_SNAPSHOT_INTERVAL: String(SNAPSHOT_INTERVAL),
  NODECTL_STATE_SYNC_SNAPSHOT_KEEP_RECENT: '0',
  NODECTL_LOG_LEVEL: 'info',
}

describe.skipIf(!BUILT)(`a node joins a 4-validator chain ${TARGET_HEIGHT} heights in by state sync`, () => {
  let dir: string
  let net: TestnetProcesses

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-statesync-'))
    net = await TestnetProcesses.create(dir, 4, ENV, undefined, 1)
    await Promise.all([0, 1, 2, 3].map((i) => net.start(i, i === HONEST ? [] : CORRUPT_CHUNKS)))
    await net.watch(HONEST)
  }, 60_000)

  afterAll(async () => {
    await net?.stopAll()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it(
    'restores the snapshot, refuses the corrupted chunks, block-syncs and follows consensus',
    async () => {
      // A transfer long before the snapshot: history the joiner will not have. Signed here and sent raw,
      // its receipt awaited by hash (block by block).
      const chainId = BigInt(await net.rpc<string>(HONEST, 'eth_chainId'))
      const raw = await new Wallet(SENDER!.privateKey).signTransaction({
        type: 2,
        chainId,
        nonce: 0,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
        to: RECIPIENT,
        value: 10n ** 18n,
      })
      const hash = await net.rpc<string>(HONEST, 'eth_sendRawTransaction', [raw])
      let sentHeight = 0
      await net.waitUntil(async () => {
        const receipt = await net.rpc<{ blockNumber: string } | null>(HONEST, 'eth_getTransactionReceipt', [hash])
        sentHeight = receipt ? Number(receipt.blockNumber) : 0
        return receipt !== null
      }, `receipt ${hash}`)

      await net.waitUntil(async () => (await net.height(HONEST)) >= TARGET_HEIGHT + 2, `height ${TARGET_HEIGHT + 2}`, TARGET_HEIGHT * 1000)
      const trusted = await net.comet<{ block_id: { hash: string } }>(HONEST, 'block', { height: String(TRUST_HEIGHT) })
      const rpcServers = [0, 1].map((i) => `127.0.0.1:${net.portOf(i, 'cometRpc')}`).join(',')

      const started = performance.now()
      await net.start(JOINER, [
        '--statesync.enable',
        '--statesync.rpc_servers',
        rpcServers,
        '--statesync.trust_height',
        String(TRUST_HEIGHT),
        '--statesync.trust_hash',
        trusted.block_id.hash,
        '--statesync.discovery_time',
        '5s',
      ])
      // The start command printed the restored height before its banner.
      const restored = /state sync: restored height (\d+)/.exec(net.nodes[JOINER]!.output.join('\n'))
      const base = Number(restored?.[1])
      expect(base).toBeGreaterThanOrEqual(TARGET_HEIGHT)

      // Following consensus: the joiner commits the heights the validators commit from now on.
      const head = await net.height(HONEST)
      await net.waitUntil(async () => (await net.height(JOINER)) >= head + 3, 'the joiner following consensus', 60_000)
      const seconds = (performance.now() - started) / 1000
      console.log(`state sync: joined at height ${base}, following consensus ${seconds.toFixed(1)} s after start`)

      const output = net.nodes[JOINER]!.output.join('\n')
      expect(output).toContain('snapshot restored')
      expect(output).toContain('the application rejected a snapshot peer')

      // The same chain: the block and the EVM state at a height the joiner committed itself.
      const height = head + 2
      const [theirs, ours] = await Promise.all(
        [HONEST, JOINER].map((i) => net.comet<{ block_id: { hash: string } }>(i, 'block', { height: String(height) })),
      )
      expect(ours!.block_id.hash).toBe(theirs!.block_id.hash)
      const block = `0x${height.toString(16)}`
      const roots = await Promise.all(
        [HONEST, JOINER].map((i) => net.rpc<{ stateRoot: string }>(i, 'eth_getBlockByNumber', [block, false])),
      )
      expect(roots[1]!.stateRoot).toBe(roots[0]!.stateRoot)

      // Its history begins at the first block it synced, as CometBFT's block store does after state sync.
      expect(await net.rpc(JOINER, 'eth_getTransactionReceipt', [hash])).toBeNull()
      await expectHistoryFrom({
        evmUrl: `http://127.0.0.1:${net.portOf(JOINER, 'jsonRpc')}`,
        cometUrl: `http://127.0.0.1:${net.portOf(JOINER, 'cometRpc')}`,
        base: base + 1,
        preSnapshot: sentHeight,
        account: RECIPIENT,
      })
    },
    TARGET_HEIGHT * 1000 + 120_000,
  )
})
