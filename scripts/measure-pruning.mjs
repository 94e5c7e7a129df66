#!/usr/bin/env node
/**
 * Issue 33's disk figure for state pruning, measured by hand (not in CI): runs the EVM application of
 * the built dist/ over a LevelDB of its own (no consensus engine: each block is FinalizeBlock + Commit,
 * as the engine calls them) through the same chain of transfer blocks under each `pruning` strategy,
 * and reports the database's size (du of the LevelDB directory) at the end, before and after a full
 * compaction (LevelDB reclaims the space of deleted keys only as it compacts), and the trie nodes and
 * pruning records it holds.
 *
 *   npm run build && node scripts/measure-pruning.mjs [--blocks 2000] [--txs 20] [--accounts 10000]
 *                                                      [--strategies nothing,everything,default]
 *
 * The chain: a genesis of `--accounts` funded accounts; each block has `--txs` transfers, from as many
 * senders to recipients drawn from the genesis accounts (deterministic), so the state keeps its size and
 * every block rewrites a few dozen paths of the account trie.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { ClassicLevel } from 'classic-level'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href)
const { Database } = await dist('db/database.js')
const { EvmApplication } = await dist('evm/app.js')
const { parseAppState } = await dist('evm/genesis.js')
const { keccak256, privateKeyToAddress } = await dist('crypto/index.js')

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`)
  return Number(at > 0 ? process.argv[at + 1] : fallback)
}
const BLOCKS = option('blocks', 2000)
const TXS = option('txs', 20)
const ACCOUNTS = option('accounts', 10_000)
const CHAIN_ID = 'nodectl_9000-1'
const hex = (b) => `0x${Buffer.from(b).toString('hex')}`

const senderKeys = Array.from({ length: TXS }, (_, i) => keccak256(Buffer.from(`sender-${i}`)))
const senders = senderKeys.map((k) => hex(privateKeyToAddress(k)))
const others = Array.from({ length: ACCOUNTS }, (_, i) => hex(keccak256(Buffer.from(`account-${i}`)).subarray(12)))
const appState = {
  evm: { accounts: [...senders, ...others].map((address) => ({ address, balance: (10n ** 24n).toString() })), fee_recipients: {} },
  fee_market: { base_fee: '1000000000', elasticity_multiplier: 2, base_fee_change_denominator: 8, min_gas_price: '0', no_base_fee: false },
}

/** The same signed transactions for every run. */
function signBlocks(common) {
  let seed = 1
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
  const blocks = []
  for (let b = 0; b < BLOCKS; b++) {
    blocks.push(
      senderKeys.map((key) =>
        createFeeMarket1559Tx(
          { chainId: common.chainId(), nonce: BigInt(b), to: others[next() % ACCOUNTS], value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n },
          { common },
        )
          .sign(key)
          .serialize(),
      ),
    )
  }
  return blocks
}

const du = (dir) => Number(execFileSync('du', ['-sb', dir]).toString().split('\t')[0])
const mb = (bytes) => (bytes / 2 ** 20).toFixed(1)

let signed
async function runOnce(label, pruning) {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-measure-pruning-'))
  const db = new Database({ path: dir })
  await db.open()
  const app = await EvmApplication.create({ db, chainId: CHAIN_ID, genesis: parseAppState(appState), ...(pruning ? { pruning } : {}) })
  await app.initChain({
    time: { seconds: 1_700_000_000, nanos: 0 },
    chainId: CHAIN_ID,
    consensusParams: {
      block: { maxBytes: 22020096n, maxGas: 30_000_000n },
      evidence: { maxAgeNumBlocks: 100000n, maxAgeDurationNs: 172800000000000n, maxBytes: 1048576n },
      validator: { pubKeyTypes: ['ed25519'] },
      version: { app: 0n },
      abci: { voteExtensionsEnableHeight: 0n },
    },
    validators: [],
    appStateBytes: Buffer.from(JSON.stringify(appState)),
    initialHeight: 1,
  })
  signed ??= signBlocks(app.common)
  const started = performance.now()
  for (let b = 0; b < BLOCKS; b++) {
    const height = b + 1
    const res = await app.finalizeBlock({
      txs: signed[b],
      decidedLastCommit: { round: 0, votes: [] },
      hash: keccak256(Buffer.from(`block-${height}`)),
      height,
      time: { seconds: 1_700_000_000 + height, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20).fill(0xab),
    })
    if (res.txResults.some((r) => r.code !== 0)) throw new Error(`block ${height}: a transfer failed`)
    await app.commit()
    // Each run ends before the next interval (a chain of one-second blocks gives it the time).
    if (height % 10 === 0) await app.pruningIdle()
  }
  const seconds = (performance.now() - started) / 1000
  await app.pruningIdle()
  const lowest = app.lowestStateHeight()
  await app.close()
  await db.close()
  const before = du(dir)
  const level = new ClassicLevel(dir, { keyEncoding: 'view', valueEncoding: 'view' })
  await level.open()
  const count = async (prefix) => (await level.keys({ gte: Uint8Array.of(prefix), lt: Uint8Array.of(prefix + 1) }).all()).length
  const trieKeys = await count(0x01)
  const pruneKeys = await count(0x02)
  await level.compactRange(Uint8Array.of(0x00), Uint8Array.of(0xff, 0xff))
  await level.close()
  const after = du(dir)
  rmSync(dir, { recursive: true, force: true })
  console.log(
    `| ${label} | ${BLOCKS} | ${lowest} | ${mb(before)} | ${mb(after)} | ${trieKeys} | ${pruneKeys} | ${seconds.toFixed(0)} |`,
  )
}

console.log(`${BLOCKS} blocks of ${TXS} transfers, ${ACCOUNTS + TXS} genesis accounts`)
console.log('| pruning | blocks | lowest state height | du MiB | du MiB compacted | trie keys | pruning records | s |')
console.log('|---|---|---|---|---|---|---|---|')
const STRATEGIES = {
  nothing: ['nothing', undefined],
  everything: ['everything (keep 2, interval 10)', { keepRecent: 2, interval: 10 }],
  default: ['default (keep 362880, interval 10)', { keepRecent: 362_880, interval: 10 }],
}
const at = process.argv.indexOf('--strategies')
for (const name of at > 0 ? process.argv[at + 1].split(',') : Object.keys(STRATEGIES)) await runOnce(...STRATEGIES[name])
