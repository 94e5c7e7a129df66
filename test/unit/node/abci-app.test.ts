/**
 * The application as CometBFT drives it (node/abci-app.ts), called in process as CometBFT's ABCI client
 * would: CheckTx is the pool's admission with geth's texts as codes, RECHECK keeps what the pool holds
 * and re-admits what it lost (a restarted application), PrepareProposal proposes only executable
 * transactions in nonce order, Commit updates the pool and publishes the height, and InitChain refuses a
 * genesis other than the home's.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet, keccak256, parseEther } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { FinalizeBlockRequest } from '../../../src/abci/application.js'
import { genesisFromDoc } from '../../../src/consensus/chain-state.js'
import { initHome } from '../../../src/config/init-home.js'
import { loadNodeConfig } from '../../../src/config/load.js'
import type { NodeConfig } from '../../../src/config/node-config.js'
import { Database } from '../../../src/db/database.js'
import { devAccounts } from '../../../src/keystore/dev-accounts.js'
import { AbciApp } from '../../../src/node/abci-app.js'
import { openAppParts, type AppParts } from '../../../src/node/app-parts.js'
import type { NodeEventMap } from '../../../src/node/node-events.js'
import { hexToBytes, utf8ToBytes } from '../../../src/primitives/hex.js'
import { TypedEmitter } from '../../../src/utils/events.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { testCallWorkerScript } from '../../helpers/call-worker-script.js'

const [ALICE, BOB] = devAccounts(2)

describe('the application under CometBFT (AbciApp)', () => {
  let dir: string
  let config: NodeConfig
  let db: Database
  let parts: AppParts
  let events: TypedEmitter<NodeEventMap>
  let abci: AbciApp

  async function open(): Promise<void> {
    db = new Database({ path: config.paths.db })
    await db.open()
    parts = await openAppParts(config, db, silentLogger, { callWorkerScript: testCallWorkerScript() })
    events = new TypedEmitter<NodeEventMap>()
    abci = new AbciApp({ ...parts, events, genesis: config.genesis })
  }

  async function close(): Promise<void> {
    await parts.app.close()
    await db.close()
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-abci-app-'))
    const home = await initHome({
      home: join(dir, 'home'),
      moniker: 'abci',
      accounts: [{ address: ALICE!.address, balance: parseEther('10') }],
    })
    config = await loadNodeConfig({ home: home.home, dev: false, env: {}, flags: {} })
    await open()
    const genesis = genesisFromDoc(config.genesis)
    await abci.initChain({
      time: genesis.genesisTime,
      chainId: genesis.chainId,
      consensusParams: genesis.consensusParams,
      validators: genesis.validators,
      appStateBytes: genesis.appStateBytes(),
      initialHeight: 1,
    })
  })

  afterEach(async () => {
    await close()
    await rm(dir, { recursive: true, force: true })
  })

  function transfer(nonce: number): Promise<string> {
    return new Wallet(ALICE!.privateKey).signTransaction({
      type: 2,
      chainId: config.evmChainId,
      nonce,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
      to: BOB!.address,
      value: 1n,
    })
  }

  /** FinalizeBlock and Commit of `txs` at `height`, as CometBFT runs them. */
  async function commitBlock(height: number, txs: Uint8Array[]): Promise<void> {
    const req: FinalizeBlockRequest = {
      txs,
      decidedLastCommit: { round: 0, votes: [] },
      hash: new Uint8Array(32).fill(height),
      height,
      time: { seconds: config.genesis.genesisTime.seconds + height, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: config.genesis.validators[0]!.address,
    }
    await abci.finalizeBlock(req)
    await abci.commit()
  }

  it("answers CheckTx with the pool's admission: geth's message as a code, never an exception", async () => {
    const first = hexToBytes(await transfer(0))
    expect((await abci.checkTx(first, 'new')).code).toBe(0)
    expect(parts.pool.has(keccak256(first))).toBe(true)
    const bad = await abci.checkTx(utf8ToBytes('not a transaction'), 'new')
    expect(bad.code).not.toBe(0)
    expect(bad.log).not.toBe('')
    await commitBlock(1, [first])
    const again = await abci.checkTx(first, 'new')
    expect(again.code).not.toBe(0)
    expect(again.log).toMatch(/^nonce too low/)
  })

  it('proposes only executable transactions, in nonce order; a gapped nonce waits', async () => {
    const [t0, t1, t3] = await Promise.all([transfer(0), transfer(1), transfer(3)])
    for (const raw of [t1, t3, t0]) expect((await abci.checkTx(hexToBytes(raw), 'new')).code).toBe(0)
    const proposal = await abci.prepareProposal({
      maxTxBytes: 1 << 20,
      txs: [t1, t3, t0].map(hexToBytes),
      localLastCommit: { round: 0, votes: [] },
      height: 1,
      time: { seconds: config.genesis.genesisTime.seconds + 1, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: config.genesis.validators[0]!.address,
    })
    expect(proposal.txs.map((t) => keccak256(t))).toEqual([keccak256(t0), keccak256(t1)])
  })

  it('after Commit the pool forgets the included transactions and the height is published', async () => {
    const raw = hexToBytes(await transfer(0))
    await abci.checkTx(raw, 'new')
    const published = new Promise<number>((resolve) => events.on('EvmBlock', (e) => resolve(e.block.number)))
    await commitBlock(1, [raw])
    expect(await published).toBe(1)
    expect(parts.pool.size()).toBe(0)
    expect(await parts.app.getReceipt(hexToBytes(keccak256(raw)))).toBeDefined()
    expect((await abci.info()).lastBlockHeight).toBe(1)
  })

  it('RECHECK keeps what the pool holds and re-admits what a restarted application lost', async () => {
    await commitBlock(1, [])
    const raw = hexToBytes(await transfer(0))
    await abci.checkTx(raw, 'new')
    expect((await abci.checkTx(raw, 'recheck')).code).toBe(0)
    await close()
    await open()
    expect(parts.pool.size()).toBe(0)
    expect((await abci.checkTx(raw, 'recheck')).code).toBe(0)
    expect(parts.pool.has(keccak256(raw))).toBe(true)
  })

  it("InitChain refuses an app_state other than the home's genesis", async () => {
    await close()
    await rm(config.paths.db, { recursive: true, force: true })
    await open()
    const genesis = genesisFromDoc(config.genesis)
    await expect(
      abci.initChain({
        time: genesis.genesisTime,
        chainId: genesis.chainId,
        consensusParams: genesis.consensusParams,
        validators: genesis.validators,
        appStateBytes: utf8ToBytes('{"evm":{"accounts":[]}}'),
        initialHeight: 1,
      }),
    ).rejects.toThrow(/differs from this home's config\/genesis.json/)
  })
})
