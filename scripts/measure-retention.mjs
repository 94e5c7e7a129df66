#!/usr/bin/env node
/**
 * Issue 33 ("Bounded disk", history half), measured by hand: the data directory of a dev node (the built
 * dist/) after `--blocks` heights of one value transfer each, once keeping everything and once with
 * `min-retain-blocks` = `--keep` (evidence limited to 2 heights in the genesis, so the setting alone
 * decides). Prints both sizes in bytes and the history bases: `bytes` as the node left the data directory,
 * `compactedBytes` after a full LevelDB compaction (which is when deleted keys give their space back).
 *
 *   node scripts/measure-retention.mjs [--blocks 3000] [--keep 300]
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Level } from 'level'
import { Wallet } from 'ethers'
import { initDevHome } from '../dist/config/init-home.js'
import { loadNodeConfig } from '../dist/config/load.js'
import { devAccounts } from '../dist/keystore/dev-accounts.js'
import { Node } from '../dist/node/node.js'
import { testNodeSettings } from '../dist/node/test-settings.js'
import { silentLogger } from '../dist/utils/logger.js'

const { values } = parseArgs({ options: { blocks: { type: 'string', default: '3000' }, keep: { type: 'string', default: '300' } } })
const blocks = Number(values.blocks)

async function rpc(url, method, params = []) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = await res.json()
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

async function measure(keep) {
  const home = mkdtempSync(join(tmpdir(), 'nodectl-measure-retain-'))
  try {
    await initDevHome(home, { settings: testNodeSettings() })
    const genesisPath = join(home, 'config', 'genesis.json')
    const genesis = JSON.parse(readFileSync(genesisPath, 'utf8'))
    genesis.consensus_params.evidence.max_age_num_blocks = '2'
    writeFileSync(genesisPath, JSON.stringify(genesis, null, 2))
    const flags = { 'consensus.create_empty_blocks_interval': '10m', 'min-retain-blocks': String(keep) }
    const config = await loadNodeConfig({ home, dev: true, env: {}, flags })
    const node = await Node.create(config, silentLogger)
    const { jsonRpcHttp: url } = await node.start()
    const [from, to] = devAccounts(2)
    const wallet = new Wallet(from.privateKey)
    const chainId = BigInt(await rpc(url, 'eth_chainId'))
    const { app, engine, blockStore } = node.components
    // One transfer a block: each is sent once the previous one is mined.
    for (let nonce = 0; nonce < blocks; nonce++) {
      const raw = await wallet.signTransaction({ type: 2, chainId, nonce, gasLimit: 21000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, to: to.address, value: 1n })
      const hash = await rpc(url, 'eth_sendRawTransaction', [raw])
      while ((await rpc(url, 'eth_getTransactionReceipt', [hash])) === null) await new Promise((r) => setTimeout(r, 2))
    }
    await Promise.all([app.historyPruned(), engine.pruned()])
    const bases = { evm: app.historyBase(), blocks: blockStore.base(), head: app.latestHeight() }
    await node.stop()
    const size = () => Number(execFileSync('du', ['-sb', config.paths.dataDir]).toString().split('\t')[0])
    const bytes = size()
    const level = new Level(config.paths.db, { keyEncoding: 'view', valueEncoding: 'view' })
    await level.open()
    await level.compactRange(new Uint8Array([0]), new Uint8Array([0xff, 0xff]))
    await level.close()
    return { keep, bytes, compactedBytes: size(), ...bases }
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

for (const keep of [0, Number(values.keep)]) console.log(JSON.stringify(await measure(keep)))
