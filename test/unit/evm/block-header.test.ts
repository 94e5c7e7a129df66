/**
 * The EVM view's block hashes are Ethereum header hashes: ethereumjs, given the fields of each stored
 * block, builds the same header (RLP) and hash, and so does ethers from the block's JSON; parent
 * hashes link; the hash follows the height's consensus data and results only (two applications fed
 * the same blocks agree, a reopened one reads the same); stores of the older format are refused with
 * a message that says what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBlockHeader } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { formatBlock } from '../../../src/api/eth/format.js'
import { Prefix, heightKey } from '../../../src/db/prefixes.js'
import { encodeHeader } from '../../../src/evm/store/block-header.js'
import { decodeBlockRecord, encodeBlockRecord } from '../../../src/evm/store/evm-records.js'
import type { EvmBlock } from '../../../src/evm/store/views.js'
import { keccak256 } from '../../../src/crypto/index.js'
import { bytesToHex } from '../../../src/primitives/hex.js'
import { encodeHeaderJson, hashHeaderJson } from '../../helpers/eth-header.js'
import { ADDRESS2, DEV_KEY, ETHER, GWEI, blockHash, createHarness, sign1559, sign2930, signLegacy, type Harness } from './helpers.js'

const hex = bytesToHex
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'

/** The header ethereumjs builds from the block's fields, under Cancun rules (a Common of its own). */
function referenceHeader(b: EvmBlock) {
  return createBlockHeader(
    {
      parentHash: b.parentHash,
      coinbase: b.miner,
      stateRoot: b.stateRoot,
      transactionsTrie: b.transactionsRoot,
      receiptTrie: b.receiptsRoot,
      logsBloom: b.logsBloom,
      difficulty: 0n,
      number: BigInt(b.number),
      gasLimit: b.gasLimit,
      gasUsed: b.gasUsed,
      timestamp: BigInt(b.timestamp),
      extraData: b.extraData,
      mixHash: b.mixHash,
      nonce: new Uint8Array(8),
      baseFeePerGas: b.baseFeePerGas,
      withdrawalsRoot: EMPTY_TRIE_ROOT,
      blobGasUsed: 0n,
      excessBlobGas: 0n,
      parentBeaconBlockRoot: new Uint8Array(32),
    },
    { common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }) },
  )
}

/** Three blocks: every transaction type, then an empty block. */
async function buildChain(h: Harness): Promise<void> {
  const c = h.app.common
  await h.finalize([
    signLegacy(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: ETHER }),
    sign2930(c, DEV_KEY, { nonce: 1n, to: ADDRESS2, value: ETHER }),
    sign1559(c, DEV_KEY, { nonce: 2n, to: ADDRESS2, value: ETHER, maxFeePerGas: 10n * GWEI }),
  ])
  await h.finalize([sign1559(c, DEV_KEY, { nonce: 3n, to: ADDRESS2, value: 1n })])
  await h.finalize([])
}

async function blocksOf(h: Harness): Promise<EvmBlock[]> {
  const out: EvmBlock[] = []
  for (let n = 0; n <= h.app.latestHeight(); n++) out.push((await h.app.getBlock(n))!)
  return out
}

describe('EVM block hashes', () => {
  let h: Harness
  let blocks: EvmBlock[]
  beforeAll(async () => {
    h = await createHarness()
    await buildChain(h)
    blocks = await blocksOf(h)
  })
  afterAll(() => h.close())

  it('are keccak256 of the Cancun header ethereumjs builds from the block fields', () => {
    expect(blocks).toHaveLength(4)
    for (const b of blocks) {
      const reference = referenceHeader(b)
      expect(hex(encodeHeader(b))).toBe(hex(reference.serialize()))
      expect(hex(b.hash)).toBe(hex(reference.hash()))
      expect(hex(keccak256(encodeHeader(b)))).toBe(hex(b.hash))
      expect(RLP.decode(encodeHeader(b))).toHaveLength(20)
      // What eth_getBlockByNumber shows rebuilds the same header (ethers, as a client does).
      expect(encodeHeaderJson(formatBlock(b))).toBe(hex(encodeHeader(b)))
      expect(hashHeaderJson(formatBlock(b))).toBe(hex(b.hash))
    }
  })

  it('link each block to the one before and carry the consensus hash in extraData', async () => {
    expect(hex(blocks[0]!.parentHash)).toBe('0x' + '00'.repeat(32))
    for (let n = 1; n < blocks.length; n++) {
      const b = blocks[n]!
      expect(hex(b.parentHash)).toBe(hex(blocks[n - 1]!.hash))
      expect(hex(b.cometHash!)).toBe(hex(blockHash(n)))
      expect(hex(b.extraData)).toBe(hex(blockHash(n)))
      expect(hex(b.hash)).not.toBe(hex(blockHash(n)))
      expect((await h.app.getBlock(b.hash))!.number).toBe(n)
      expect(await h.app.getBlock(blockHash(n))).toBeUndefined()
      for (const tx of (await h.app.getBlockTxRecords(n))!) expect(hex(tx.blockHash)).toBe(hex(b.hash))
    }
  })

  it('are the same in another application fed the same blocks, and after a reopen', async () => {
    const other = await createHarness()
    try {
      await buildChain(other)
      expect((await blocksOf(other)).map((b) => hex(b.hash))).toEqual(blocks.map((b) => hex(b.hash)))
    } finally {
      await other.close()
    }
    await h.reopen()
    expect((await blocksOf(h)).map((b) => hex(b.hash))).toEqual(blocks.map((b) => hex(b.hash)))
    expect((await blocksOf(h)).map((b) => hex(encodeHeader(b)))).toEqual(blocks.map((b) => hex(encodeHeader(b))))
  })

  it('refuse a store of the older format, whose hashes were the consensus hashes, when the application opens', async () => {
    const record = RLP.decode(encodeBlockRecord(blocks[1]!)) as Uint8Array[]
    const older = RLP.encode(record.slice(0, 13))
    expect(() => decodeBlockRecord(1, older)).toThrow(/block 1 was written by an older nodectl.*--dev chain is throw-away/)
    expect(hex(decodeBlockRecord(1, encodeBlockRecord(blocks[1]!)).hash)).toBe(hex(blocks[1]!.hash))
    const head = blocks.at(-1)!
    await h.db.put(heightKey(Prefix.evmBlock, head.number), RLP.encode((RLP.decode(encodeBlockRecord(head)) as Uint8Array[]).slice(0, 13)))
    await expect(h.reopen()).rejects.toThrow(`EVM store: block ${head.number} was written by an older nodectl`)
  })
})
