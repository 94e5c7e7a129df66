import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MerkleStateManager, verifyMerkleStateProof } from '@ethereumjs/statemanager'
import { createAddress } from '../../../src/evm/store/evm-records.js'
import { UnknownBlockError } from '../../../src/evm/errors.js'
import { bytesToBigint, bytesToHex, hexToBytes, utf8ToBytes } from '../../../src/primitives/hex.js'
import { keccak256 } from '../../../src/crypto/index.js'
import { Database } from '../../../src/db/database.js'
import { Prefix, heightKey } from '../../../src/db/prefixes.js'
import {
  ADDRESS2,
  DEV_ADDRESS,
  DEV_KEY,
  ETHER,
  GWEI,
  STORE_RUNTIME,
  blockHash,
  createHarness,
  defaultAppState,
  deployCode,
  sign1559,
  word,
  type Harness,
} from './helpers.js'

const hex = bytesToHex

describe('state over heights', () => {
  let h: Harness
  let contract: Uint8Array
  beforeAll(async () => {
    h = await createHarness()
  })
  afterAll(() => h.close())

  it("writes nothing in FinalizeBlock; Commit writes the height (with InitChain's writes) and only then shows it", async () => {
    const c = h.app.common
    const raw = sign1559(c, DEV_KEY, { nonce: 0n, data: deployCode(STORE_RUNTIME), gasLimit: 200_000n })
    // Another reader of the files (a call worker) sees only what is written.
    const other = new Database({ path: h.dir })
    await other.open()
    const written = async (height: number) => (await other.get(heightKey(Prefix.evmBlock, height))) !== undefined
    expect(await written(0)).toBe(false)
    const resp = await h.app.finalizeBlock({
      txs: [raw],
      decidedLastCommit: { round: 0, votes: [] },
      hash: blockHash(1),
      height: 1,
      time: { seconds: ++h.time, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20).fill(0xab),
    })
    expect(resp.txResults[0]!.code).toBe(0)
    expect(await written(1)).toBe(false)
    expect(await h.app.getBlock(1)).toBeUndefined()
    expect((await h.app.info()).lastBlockHeight).toBe(0)
    await h.app.commit()
    expect([await written(0), await written(1)]).toEqual([true, true])
    expect((await h.app.getBlock(1))!.number).toBe(1)
    expect(await h.app.info()).toMatchObject({ lastBlockHeight: 1, lastBlockAppHash: resp.appHash })
    await other.close()
    h.height = 2
    contract = createAddress(hexToBytes(DEV_ADDRESS), 0n)
    for (let i = 1n; i <= 3n; i++) {
      await h.finalize([
        sign1559(c, DEV_KEY, { nonce: 2n * i - 1n, to: hex(contract) as `0x${string}`, data: word(i * 10n), gasLimit: 100_000n }),
        sign1559(c, DEV_KEY, { nonce: 2n * i, to: ADDRESS2, value: ETHER }),
      ])
    }
    expect(h.app.latestHeight()).toBe(4)
  })

  it('keeps old state readable', async () => {
    const a2 = hexToBytes(ADDRESS2)
    expect(await h.app.getBalance(a2, 0)).toBe(100n * ETHER)
    expect(await h.app.getBalance(a2, 1)).toBe(100n * ETHER)
    expect(await h.app.getBalance(a2, 2)).toBe(101n * ETHER)
    expect(await h.app.getBalance(a2)).toBe(103n * ETHER)
    expect(await h.app.getNonce(hexToBytes(DEV_ADDRESS), 2)).toBe(3n)
    expect(hex(await h.app.getStorageAt(contract, word(0n), 2))).toBe(hex(word(10n)))
    expect(hex(await h.app.getStorageAt(contract, word(0n), 3))).toBe(hex(word(20n)))
    expect(hex(await h.app.getStorageAt(contract, word(0n)))).toBe(hex(word(30n)))
    expect(hex(await h.app.getCode(contract, 0))).toBe('0x')
    expect(hex(await h.app.getCode(contract, 1))).toBe(hex(STORE_RUNTIME))
    const acct = await h.app.getAccount(contract)
    expect(acct.nonce).toBe(1n)
    expect(hex(acct.codeHash)).toBe(hex(keccak256(STORE_RUNTIME)))
    await expect(h.app.getBalance(a2, 99)).rejects.toBeInstanceOf(UnknownBlockError)
  })

  it('proves accounts and storage against the block stateRoot', async () => {
    for (const height of [2, 4]) {
      const block = (await h.app.getBlock(height))!
      const proof = await h.app.getProof(contract, [word(0n)], height)
      expect(hex(keccak256(hexToBytes(proof.accountProof[0]!)))).toBe(hex(block.stateRoot))
      expect(await verifyMerkleStateProof(new MerkleStateManager(), proof)).toBe(true)
      expect(BigInt(proof.storageProof[0]!.value)).toBe(height === 2 ? 10n : 30n)
      expect(proof.codeHash).toBe(hex(keccak256(STORE_RUNTIME)))
    }
    const eoa = await h.app.getProof(hexToBytes(ADDRESS2), [], 3)
    expect(BigInt(eoa.balance)).toBe(102n * ETHER)
    expect(await verifyMerkleStateProof(new MerkleStateManager(), eoa)).toBe(true)
    const missing = await h.app.getProof(new Uint8Array(20).fill(0x42), [])
    expect(await verifyMerkleStateProof(new MerkleStateManager(), missing)).toBe(true)
  })

  it('answers ABCI queries', async () => {
    const q = (path: string, height = 0) => h.app.query({ path, data: new Uint8Array(0), height, prove: false })
    const bal = await q(`/evm/balance/${ADDRESS2}`)
    expect(bal.code).toBe(0)
    expect(bytesToBigint(bal.value)).toBe(103n * ETHER)
    expect(bal.height).toBe(4)
    expect(bytesToBigint((await q(`/evm/balance/${ADDRESS2}`, 1)).value)).toBe(100n * ETHER)
    expect(bytesToBigint((await q(`/evm/nonce/${DEV_ADDRESS}`)).value)).toBe(7n)
    expect(hex((await q(`/evm/code/${hex(contract)}`)).value)).toBe(hex(STORE_RUNTIME))
    expect(hex((await q(`/evm/storage/${hex(contract)}/0x0`)).value)).toBe(hex(word(30n)))
    expect((await q('/evm/unknown/0x00')).code).not.toBe(0)
    expect((await q(`/evm/balance/${ADDRESS2}`, 50)).log).toBe('header not found')
  })

  it('survives a restart', async () => {
    const before = await h.app.info()
    const block = await h.app.getBlock(4)
    await h.reopen()
    const after = await h.app.info()
    expect(after.lastBlockHeight).toBe(4)
    expect(hex(after.lastBlockAppHash)).toBe(hex(before.lastBlockAppHash))
    expect(hex((await h.app.getBlock(4))!.hash)).toBe(hex(block!.hash))
    expect(await h.app.getBalance(hexToBytes(ADDRESS2), 2)).toBe(101n * ETHER)
    expect(hex((await h.app.call({ to: contract })).returnValue)).toBe(hex(word(30n)))
    expect(h.app.nextBaseFee()).toBeLessThan(GWEI)
    const resp = await h.finalize([sign1559(h.app.common, DEV_KEY, { nonce: 7n, to: ADDRESS2, value: 1n })])
    expect(resp.txResults[0]!.code).toBe(0)
    expect(hex((await h.app.getBlock(5))!.parentHash)).toBe(hex(block!.hash))
    // InitChain again on an initialised chain is refused
    await expect(
      h.app.initChain({
        time: { seconds: 0, nanos: 0 },
        chainId: 'nodectl_9000-1',
        consensusParams: {
          block: { maxBytes: 1n, maxGas: -1n },
          evidence: { maxAgeNumBlocks: 1n, maxAgeDurationNs: 1n, maxBytes: 1n },
          validator: { pubKeyTypes: [] },
          version: { app: 0n },
          abci: { voteExtensionsEnableHeight: 0n },
        },
        validators: [],
        appStateBytes: utf8ToBytes(JSON.stringify(defaultAppState())),
        initialHeight: 1,
      }),
    ).rejects.toThrow(/already initialised/)
  })

  it('answers an account read at a height again at once, until the next commit', async () => {
    const a2 = hexToBytes(ADDRESS2)
    const dev = hexToBytes(DEV_ADDRESS)
    const first = h.app.getBalance(a2, 4)
    expect(first).toBeInstanceOf(Promise)
    expect(await first).toBe(103n * ETHER)
    expect(h.app.getBalance(a2, 4)).toBe(103n * ETHER)
    expect(h.app.getBalance(a2, 5)).toBeInstanceOf(Promise)
    expect(await h.app.getNonce(dev, 5)).toBe(8n)
    expect(h.app.getNonce(dev, 5)).toBe(8n)
    await h.finalize([sign1559(h.app.common, DEV_KEY, { nonce: 8n, to: ADDRESS2, value: 1n })])
    const after = h.app.getBalance(a2, 4)
    expect(after).toBeInstanceOf(Promise)
    expect(await after).toBe(103n * ETHER)
    expect(await h.app.getBalance(a2, 6)).toBe(103n * ETHER + 2n)
    expect(h.app.getNonce(dev, 6)).toBeInstanceOf(Promise)
  })
})

describe('base fee', () => {
  it('follows block fullness and stays above the floor', async () => {
    const appState = defaultAppState()
    appState.fee_market = { ...appState.fee_market, min_gas_price: '800000000' }
    const h = await createHarness({ maxGas: 100_000n, appState })
    try {
      const c = h.app.common
      expect(h.app.nextBaseFee()).toBe(GWEI)
      const full = [0n, 1n, 2n, 3n].map((n) => sign1559(c, DEV_KEY, { nonce: n, to: ADDRESS2, value: 1n }))
      const r1 = await h.finalize(full)
      expect(r1.txResults.every((r) => r.code === 0)).toBe(true)
      expect(r1.events[1]!.attributes[0]!.value).toBe('1000000000')
      // gas used 84,000 vs target 50,000: up by 1e9 * 34,000 / 50,000 / 8
      const up = GWEI + (GWEI * 34_000n) / 50_000n / 8n
      expect(h.app.nextBaseFee()).toBe(up)
      const r2 = await h.finalize([])
      expect(r2.events[1]!.attributes[0]!.value).toBe(up.toString())
      expect((await h.app.getBlock(2))!.baseFeePerGas).toBe(up)
      // empty block: down by 1/8
      const down = up - up / 8n
      expect(h.app.nextBaseFee()).toBe(down)
      await h.finalize([])
      expect(h.app.nextBaseFee()).toBe(down - down / 8n)
      await h.finalize([])
      // 0.727 gwei would be below the floor of 0.8 gwei
      expect(h.app.nextBaseFee()).toBe(800_000_000n)
      await h.finalize([])
      expect(h.app.nextBaseFee()).toBe(800_000_000n)
      const r = (await h.app.getReceipt(keccak256(full[0]!)))!
      expect(r.effectiveGasPrice).toBe(2n * GWEI)
    } finally {
      await h.close()
    }
  })
})

describe('finalize without commit', () => {
  it("re-executes a height run again from the head state, keeping InitChain's unwritten writes", async () => {
    const h = await createHarness()
    try {
      const c = h.app.common
      const req = (txs: Uint8Array[]) => ({
        txs,
        decidedLastCommit: { round: 0, votes: [] },
        hash: blockHash(1),
        height: 1,
        time: { seconds: h.time + 1, nanos: 0 },
        nextValidatorsHash: new Uint8Array(32),
        proposerAddress: new Uint8Array(20).fill(0xab),
      })
      const abandoned = sign1559(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: 5n * ETHER })
      const first = await h.app.finalizeBlock(req([abandoned]))
      const tx = sign1559(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: 1n * ETHER })
      const second = await h.app.finalizeBlock(req([tx]))
      expect(second.txResults[0]!.code).toBe(0)
      expect(hex(second.appHash)).not.toBe(hex(first.appHash))
      await h.app.commit()
      await h.reopen()
      expect(await h.app.getBalance(hexToBytes(ADDRESS2))).toBe(101n * ETHER)
      expect(await h.app.getBalance(hexToBytes(ADDRESS2), 0)).toBe(100n * ETHER)
      expect((await h.app.getBlock(1))!.transactions.map(hex)).toEqual([hex(keccak256(tx))])
      // The abandoned run's records are gone with it.
      expect(await h.app.getTransaction(keccak256(abandoned))).toBeUndefined()
    } finally {
      await h.close()
    }
  })

  it('falls back to the proposer address as fee recipient', async () => {
    const appState = defaultAppState()
    delete appState.evm.fee_recipients
    const h = await createHarness({ appState })
    try {
      const proposer = new Uint8Array(20).fill(0xab)
      expect(hex(h.app.feeRecipientOf(proposer))).toBe(hex(proposer))
      await h.finalize([sign1559(h.app.common, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: 1n })])
      expect(hex((await h.app.getBlock(1))!.miner)).toBe(hex(proposer))
      expect(await h.app.getBalance(proposer)).toBe(21000n * GWEI)
    } finally {
      await h.close()
    }
  })
})
