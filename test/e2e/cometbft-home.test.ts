/**
 * Homes written by nodectl start a stock CometBFT: `cometbft start --home <home> --proxy_app kvstore`
 * (CometBFT's built-in key-value application, so the home's consensus files are all that is tested) on a
 * home from `nodectl init` commits blocks with the chain id and validator nodectl wrote, and the four homes
 * of `nodectl testnet init-files` make a four-validator CometBFT network on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Comet38Client } from '@cosmjs/tendermint-rpc'
import { afterEach, expect, it } from 'vitest'
import { initHome } from '../../src/config/init-home.js'
import { loadNodeConfig } from '../../src/config/load.js'
import { initTestnetFiles, TESTNET_PORTS_PER_NODE } from '../../src/config/testnet.js'
import { bytesToBase64, bytesToUpperHex } from '../../src/primitives/hex.js'
import { describeWithCometbft } from '../helpers/cometbft.js'
import { waitFor } from '../helpers/dev-node.js'
import { pickPortBlock } from '../helpers/ports.js'

/** Bound on the wait for a height: CometBFT's default timeouts commit about one block a second. */
const HEIGHT_WAIT_MS = 60_000

describeWithCometbft('nodectl homes under a stock CometBFT', (bin) => {
  const children: ChildProcess[] = []
  const dirs: string[] = []

  afterEach(async () => {
    await Promise.all(children.splice(0).map(stop))
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
  })

  function startCometbft(home: string, extra: string[]): { child: ChildProcess; output: string[] } {
    const output: string[] = []
    const child = spawn(bin, ['start', '--home', home, '--proxy_app', 'kvstore', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] })
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => output.push(chunk.toString()))
    children.push(child)
    return { child, output }
  }

  /** The height CometBFT at `url` reports, or 0 while its RPC is not up yet. */
  async function heightAt(client: Comet38Client): Promise<number> {
    try {
      return (await client.status()).syncInfo.latestBlockHeight
    } catch {
      return 0
    }
  }

  it('starts on a home written by nodectl init and commits blocks with its chain id and validator', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nodectl-cometbft-'))
    dirs.push(dir)
    const home = await initHome({ home: join(dir, 'home'), moniker: 'comet0' })
    const port = await pickPortBlock(2)
    const { child, output } = startCometbft(home.home, [`--rpc.laddr=tcp://127.0.0.1:${port}`, `--p2p.laddr=tcp://127.0.0.1:${port + 1}`])
    const client = await Comet38Client.connect(`http://127.0.0.1:${port}`)
    try {
      await waitFor(
        async () => child.exitCode === null && (await heightAt(client)) >= 2,
        HEIGHT_WAIT_MS,
        `height 2 (output: ${output.join('')})`,
      )
      const status = await client.status()
      expect(status.nodeInfo.network).toBe(home.chainId)
      expect(bytesToUpperHex(status.validatorInfo.address)).toBe(home.validatorAddress)
      expect(status.validatorInfo.pubkey?.algorithm).toBe('ed25519')
      expect(bytesToBase64(status.validatorInfo.pubkey!.data)).toBe(home.validatorPubKey)
      const validators = await client.validators({ height: 2 })
      expect(validators.validators.map((v) => bytesToUpperHex(v.address))).toEqual([home.validatorAddress])
      expect(validators.validators[0]!.votingPower).toBe(home.genesis.validators[0]!.power)
    } finally {
      client.disconnect()
    }
  })

  it('an --engine cometbft home names the application where nodectl start --abci listens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nodectl-cometbft-'))
    dirs.push(dir)
    const home = await initHome({ home: join(dir, 'home'), moniker: 'comet0', cometbft: { loopbackNetwork: false } })
    const configToml = await readFile(join(home.home, 'config', 'config.toml'), 'utf8')
    expect(configToml).toMatch(/^proxy_app = "tcp:\/\/127\.0\.0\.1:26658"$/m)
    expect(configToml).toMatch(/^abci = "socket"$/m)
    expect(configToml).not.toMatch(/allow_duplicate_ip/)
    const config = await loadNodeConfig({ home: home.home, env: {}, onWarning: (m) => expect.fail(`warning: ${m}`) })
    expect(config.abci.laddr).toEqual({ host: '127.0.0.1', port: 26658 })
  })

  it('runs the four homes of nodectl testnet init-files as a four-validator network on loopback', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nodectl-cometbft-testnet-'))
    dirs.push(dir)
    const startingPort = await pickPortBlock(4 * TESTNET_PORTS_PER_NODE)
    // --engine cometbft adds CometBFT's loopback p2p keys (allow_duplicate_ip, addr_book_strict) to each home.
    const testnet = await initTestnetFiles({ outputDir: dir, validators: 4, startingPort, engine: 'cometbft' })
    const runs = testnet.nodes.map((node) => startCometbft(node.home, []))
    const clients = await Promise.all(testnet.nodes.map((node) => Comet38Client.connect(node.cometRpc)))
    try {
      const outputs = (): string => runs.map((r, i) => `--- node${i}\n${r.output.join('').slice(-4000)}`).join('\n')
      await waitFor(
        async () => runs.every((r) => r.child.exitCode === null) && (await Promise.all(clients.map(heightAt))).every((h) => h >= 3),
        HEIGHT_WAIT_MS,
        `every node at height 3 (${outputs()})`,
      )
      // Height 2's block, as each node stored it: one chain.
      const hashes = await Promise.all(clients.map(async (c) => bytesToUpperHex((await c.block(2)).blockId.hash)))
      expect(new Set(hashes).size).toBe(1)
      const validators = await clients[0]!.validators({ height: 2 })
      expect(validators.validators.map((v) => bytesToUpperHex(v.address)).sort()).toEqual(
        testnet.nodes.map((n) => n.validatorAddress).sort(),
      )
      // Every validator signed height 2's commit.
      const commit = await clients[0]!.commit(2)
      expect(commit.commit.signatures.filter((s) => s.signature && s.signature.length > 0)).toHaveLength(4)
    } finally {
      for (const c of clients) c.disconnect()
    }
  })
})

/** Stops a cometbft process and waits for its exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  await exited
}
