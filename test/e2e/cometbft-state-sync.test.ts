/**
 * State sync of the application under a stock CometBFT: node A (`cometbft` + `nodectl start --abci`)
 * takes a snapshot every few heights; node B, a new home of the same chain with CometBFT's
 * `[statesync]` on (A's RPC twice as its light-client servers, A's height 1 as the trusted header),
 * restores A's snapshot through OfferSnapshot/ApplySnapshotChunk, then block-syncs and follows A. B
 * never executed the blocks below the snapshot: its EVM JSON-RPC answers as A's above it, and below it
 * as a node whose history was pruned (4444), where CometBFT's store begins.
 *
 * Transactions are signed here with the nonces counted here and sent raw, each waited for by its hash:
 * an ethers signer reads the pending nonce through its provider's 250 ms request cache, and a send right
 * after a mined one (the receipt found at once, on a loaded machine) reused the mined one's nonce
 * ("nonce too low: tx 0 state 1").
 */
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet, parseEther, type TransactionRequest } from 'ethers'
import { afterAll, expect, it } from 'vitest'
import { defaultNodeSettings } from '../../src/config/defaults.js'
import { initHome } from '../../src/config/init-home.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToHex } from '../../src/primitives/hex.js'
import { STORE_RUNTIME, deployCode, word } from '../unit/evm/helpers.js'
import { CometbftPair } from '../helpers/cometbft-pair.js'
import { describeWithCometbft } from '../helpers/cometbft.js'
import { rpc, waitFor } from '../helpers/dev-node.js'
import { pickPortBlock } from '../helpers/ports.js'
import { expectHistoryFrom } from '../helpers/restored-history.js'

/** Heights between A's snapshots. */
const INTERVAL = 10
const WAIT_MS = 60_000
const [SENDER] = devAccounts(1)
const RECIPIENT = '0x00000000000000000000000000000000000a11ce'

/** Sets CometBFT's `[statesync]` keys in a config.toml (the table written, or added). */
async function enableStateSync(configToml: string, keys: Record<string, string | boolean>): Promise<void> {
  const lines = Object.entries(keys).map(([k, v]) => `${k} = ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
  let text = await readFile(configToml, 'utf8')
  const table = /^\[statesync\]\s*$/m.exec(text)
  if (table) {
    const start = table.index + table[0].length
    const next = text.slice(start).search(/^\[/m)
    const end = next < 0 ? text.length : start + next
    const kept = text
      .slice(start, end)
      .split('\n')
      .filter((l) => !Object.keys(keys).some((k) => l.trim().startsWith(`${k} `) || l.trim().startsWith(`${k}=`)))
    text = `${text.slice(0, start)}\n${lines.join('\n')}${kept.join('\n')}\n${text.slice(end)}`
  } else {
    text = `${text}\n[statesync]\n${lines.join('\n')}\n`
  }
  await writeFile(configToml, text)
}

async function cometJson<T>(url: string, path: string): Promise<T> {
  return ((await (await fetch(`${url}${path}`)).json()) as { result: T }).result
}

interface Receipt {
  blockNumber: string
  contractAddress: string | null
  status: string
}

/** Signs `tx` with the next nonce of `wallet` (counted by the caller), sends it raw, and waits for its receipt by hash. */
async function sendSigned(url: string, wallet: Wallet, tx: TransactionRequest): Promise<Receipt & { hash: string }> {
  const raw = await wallet.signTransaction({ type: 2, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, gasLimit: 21_000n, ...tx })
  const sent = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
  if (!sent.result) throw new Error(`eth_sendRawTransaction: ${JSON.stringify(sent.error)}`)
  const hash = sent.result
  const receipt = await waitFor(
    async () => (await rpc<Receipt>(url, 'eth_getTransactionReceipt', [hash])).result,
    WAIT_MS,
    `receipt ${hash}`,
  )
  expect(receipt.status).toBe('0x1')
  return { ...receipt, hash }
}

describeWithCometbft('state sync under CometBFT from nodectl snapshots', (bin) => {
  let dir: string
  const pairs: CometbftPair[] = []

  afterAll(async () => {
    await Promise.all(pairs.map((p) => p.stop()))
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const report = (): string => pairs.map((p, i) => `=== node ${'AB'[i]}\n${p.report().slice(-4000)}`).join('\n')

  it('a new node restores a snapshot, follows the chain, and its EVM answers as the source', async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-state-sync-'))
    const settingsA = defaultNodeSettings('a')
    settingsA.consensus.timeoutCommit = 100
    settingsA.snapshots.interval = INTERVAL
    // Blocks come every ~100 ms: kept, the snapshot B chose is still there while B fetches it.
    settingsA.snapshots.keepRecent = 0
    const homeA = await initHome({
      home: join(dir, 'a'),
      moniker: 'a',
      settings: settingsA,
      accounts: [{ address: SENDER!.address, balance: parseEther('1000') }],
      cometbft: { loopbackNetwork: true },
    })
    const portA = await pickPortBlock(3)
    const a = new CometbftPair(bin, homeA.home, { abci: portA, rpc: portA + 1, p2p: portA + 2 })
    pairs.push(a)
    await a.start()

    // State worth syncing: a contract with a slot set, and a transfer.
    const wallet = new Wallet(SENDER!.privateKey)
    const chainId = BigInt((await rpc<string>(a.evmUrl, 'eth_chainId')).result!)
    const deployed = await sendSigned(a.evmUrl, wallet, {
      chainId,
      nonce: 0,
      data: bytesToHex(deployCode(STORE_RUNTIME)),
      gasLimit: 200_000n,
    })
    const contract = deployed.contractAddress!
    await sendSigned(a.evmUrl, wallet, { chainId, nonce: 1, to: contract, data: bytesToHex(word(42n)), gasLimit: 100_000n })
    const sent = await sendSigned(a.evmUrl, wallet, { chainId, nonce: 2, to: RECIPIENT, value: parseEther('3') })
    const sentHeight = Number(sent.blockNumber)

    // A snapshot of a height that has all of it.
    const snapshotsDir = join(homeA.home, 'data', 'snapshots')
    const snapshotHeight = await waitFor(
      async () => {
        const names = await readdir(snapshotsDir).catch(() => [] as string[])
        return names.map((n) => /^(\d+)-1$/.exec(n)).find((m) => m && Number(m[1]) >= sentHeight)?.[1]
      },
      WAIT_MS,
      `a snapshot above height ${sentHeight}\n${report()}`,
    )

    // B: a new home of the same chain, state-syncing from A.
    const settingsB = defaultNodeSettings('b')
    settingsB.consensus.timeoutCommit = 100
    const homeB = await initHome({ home: join(dir, 'b'), moniker: 'b', settings: settingsB, cometbft: { loopbackNetwork: true } })
    await copyFile(homeA.paths.genesis, homeB.paths.genesis)
    const trusted = await cometJson<{ block_id: { hash: string } }>(a.cometUrl, '/block?height=1')
    const nodeId = (await cometJson<{ node_info: { id: string } }>(a.cometUrl, '/status')).node_info.id
    const aRpc = `127.0.0.1:${a.ports.rpc}`
    await enableStateSync(homeB.paths.configToml, {
      enable: true,
      rpc_servers: `${aRpc},${aRpc}`,
      trust_height: '1',
      trust_hash: trusted.block_id.hash,
      trust_period: '168h0m0s',
      discovery_time: '5s',
    })
    const portB = await pickPortBlock(3)
    const b = new CometbftPair(
      bin,
      homeB.home,
      { abci: portB, rpc: portB + 1, p2p: portB + 2 },
      { cometArgs: ['--p2p.persistent_peers', `${nodeId}@127.0.0.1:${a.ports.p2p}`] },
    )
    pairs.push(b)
    await b.start()

    const restored = await waitFor(
      () => b.app.output.find((l) => l.includes('snapshot restored')),
      WAIT_MS,
      'B restoring a snapshot',
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${report()}`)
    })
    const base = Number(/height[=:"\s]+(\d+)/.exec(restored)?.[1]) + 1
    expect(base).toBeGreaterThan(sentHeight)
    // B follows: it executes blocks above the snapshot.
    const followed = Number(snapshotHeight) + 3
    await waitFor(
      async () => Number((await rpc<string>(b.evmUrl, 'eth_blockNumber')).result) >= followed,
      WAIT_MS,
      `B above height ${followed}\n${report()}`,
    )

    // B never ran the blocks before the snapshot; at a height both have, its EVM answers as A's.
    // (a snapshot carries the blocks BLOCKHASH reaches, not their transactions: those stay with A).
    expect((await rpc(a.evmUrl, 'eth_getTransactionReceipt', [sent.hash])).result).not.toBeNull()
    expect((await rpc(b.evmUrl, 'eth_getTransactionReceipt', [sent.hash])).result).toBeNull()
    const at = `0x${followed.toString(16)}`
    const ask = async (method: string, params: unknown[]) => {
      const [fromA, fromB] = await Promise.all([rpc(a.evmUrl, method, params), rpc(b.evmUrl, method, params)])
      expect(fromB, `${method} on B`).toEqual(fromA)
      return fromB.result
    }
    expect(await ask('eth_getBalance', [RECIPIENT, at])).toBe('0x29a2241af62c0000')
    expect(await ask('eth_getStorageAt', [contract, '0x0', at])).toBe(bytesToHex(word(42n)))
    expect(await ask('eth_getCode', [contract, at])).toBe(bytesToHex(STORE_RUNTIME))
    await ask('eth_call', [{ to: contract, data: '0x' }, at])
    await ask('eth_getTransactionCount', [SENDER!.address, at])
    const block = (await ask('eth_getBlockByNumber', [at, false])) as { hash: string; stateRoot: string }
    expect(block.hash).toMatch(/^0x[0-9a-f]{64}$/)

    await expectHistoryFrom({ evmUrl: b.evmUrl, cometUrl: b.cometUrl, base, preSnapshot: sentHeight, account: RECIPIENT })
  }, 120_000)
})
