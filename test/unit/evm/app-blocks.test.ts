import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { createTxFromRLP } from '@ethereumjs/tx'
import { encodeReceipt } from '@ethereumjs/vm'
import { insertGenesis } from './state/insert-genesis.js'
import { hashHeader } from '../../../src/evm/store/block-header.js'
import { parseAppState } from '../../../src/evm/genesis.js'
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from '../../../src/evm/store/ordered-trie.js'
import { TxCode } from '../../../src/evm/txs/tx-codes.js'
import { bytesToHex, bytesToUpperHex, hexToBytes } from '../../../src/primitives/hex.js'
import { keccak256, sha256, signHash } from '../../../src/crypto/index.js'
import {
  ADDRESS2,
  CHAIN_ID,
  DEV_ADDRESS,
  DEV_KEY,
  ETHER,
  FEE_RECIPIENT,
  GWEI,
  KEY2,
  blockHash,
  createHarness,
  defaultAppState,
  sign1559,
  sign2930,
  signLegacy,
  type Harness,
} from './helpers.js'

const hex = bytesToHex
const attrs = (e: { attributes: { key: string; value: string }[] }) => Object.fromEntries(e.attributes.map((a) => [a.key, a.value]))

describe('genesis', () => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness()
  })
  afterAll(() => h.close())

  it('allocates the genesis state with an independently computed root', async () => {
    const root = await insertGenesis(parseAppState(defaultAppState()).accounts)
    const info = await h.app.info()
    expect(info.lastBlockHeight).toBe(0)
    expect(hex(info.lastBlockAppHash)).toBe(hex(root))
    expect(await h.app.getBalance(hexToBytes(DEV_ADDRESS))).toBe(10_000n * ETHER)
    expect(await h.app.getBalance(hexToBytes(ADDRESS2))).toBe(100n * ETHER)
  })

  it('shows the genesis state as block 0', async () => {
    const b = (await h.app.getBlock(0))!
    const root = (await h.app.info()).lastBlockAppHash
    expect(b.number).toBe(0)
    expect(hex(b.hash)).toBe(hex(hashHeader(b)))
    expect(hex(b.extraData)).toBe(hex(keccak256(new TextEncoder().encode(CHAIN_ID))))
    expect(b.cometHash).toBeUndefined()
    expect(hex(b.parentHash)).toBe('0x' + '00'.repeat(32))
    expect(hex(b.stateRoot)).toBe(hex(root))
    expect(hex(b.transactionsRoot)).toBe(hex(EMPTY_TRIE_ROOT))
    expect(b.transactions).toEqual([])
    expect(b.baseFeePerGas).toBe(GWEI)
    expect(b.gasLimit).toBe(30_000_000n)
    expect((await h.app.getBlock(b.hash))!.number).toBe(0)
    expect(await h.app.getBlock(1)).toBeUndefined()
  })
})

describe('value transfers', () => {
  let h: Harness
  let raws: Uint8Array[]
  let resp: Awaited<ReturnType<Harness['finalize']>>
  beforeAll(async () => {
    h = await createHarness()
    const c = h.app.common
    raws = [
      signLegacy(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: 1n * ETHER, gasPrice: 2n * GWEI }),
      sign2930(c, DEV_KEY, { nonce: 1n, to: ADDRESS2, value: 2n * ETHER, gasPrice: 3n * GWEI }),
      sign1559(c, DEV_KEY, { nonce: 2n, to: ADDRESS2, value: 3n * ETHER, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 2n * GWEI }),
    ]
    resp = await h.finalize(raws)
  })
  afterAll(() => h.close())

  it('executes all three transaction types', async () => {
    expect(resp.txResults.map((r) => r.code)).toEqual([0, 0, 0])
    expect(resp.txResults.map((r) => r.gasUsed)).toEqual([21000n, 21000n, 21000n])
    expect(await h.app.getBalance(hexToBytes(ADDRESS2))).toBe(106n * ETHER)
    // base fee 1 gwei is burned; tips: 1 gwei, 2 gwei, min(2, 10 - 1) = 2 gwei
    expect(await h.app.getBalance(hexToBytes(FEE_RECIPIENT))).toBe(21000n * 5n * GWEI)
    const paid = 21000n * (2n + 3n + 3n) * GWEI
    expect(await h.app.getBalance(hexToBytes(DEV_ADDRESS))).toBe(10_000n * ETHER - 6n * ETHER - paid)
    expect(await h.app.getNonce(hexToBytes(DEV_ADDRESS))).toBe(3n)
    expect((await h.app.info()).lastBlockHeight).toBe(1)
  })

  it('stores the block with real roots', async () => {
    const b = (await h.app.getBlock(1))!
    const genesis = (await h.app.getBlock(0))!
    expect(hex(b.hash)).toBe(hex(hashHeader(b)))
    expect(hex(b.cometHash!)).toBe(hex(blockHash(1)))
    expect(hex(b.extraData)).toBe(hex(blockHash(1)))
    expect(hex(b.parentHash)).toBe(hex(genesis.hash))
    expect(hex(b.miner)).toBe(FEE_RECIPIENT)
    expect(b.gasUsed).toBe(63000n)
    expect(b.baseFeePerGas).toBe(GWEI)
    expect(b.timestamp).toBe(h.time)
    expect(b.size).toBe(raws.reduce((n, r) => n + r.length, 0))
    expect(b.transactions.map(hex)).toEqual(raws.map((r) => hex(keccak256(r))))
    expect(hex(b.stateRoot)).toBe(hex(resp.appHash))
    // transactionsRoot / receiptsRoot as an independent MPT computes them
    const txTrie = new MerklePatriciaTrie()
    const rcTrie = new MerklePatriciaTrie()
    for (let i = 0; i < raws.length; i++) {
      await txTrie.put(RLP.encode(i), raws[i]!)
      const tx = createTxFromRLP(raws[i]!, { common: h.app.common })
      await rcTrie.put(
        RLP.encode(i),
        encodeReceipt({ status: 1, cumulativeBlockGasUsed: 21000n * BigInt(i + 1), bitvector: new Uint8Array(256), logs: [] }, tx.type),
      )
    }
    expect(hex(b.transactionsRoot)).toBe(hex(txTrie.root()))
    expect(hex(b.receiptsRoot)).toBe(hex(rcTrie.root()))
    expect(hex(b.transactionsRoot)).toBe(hex(orderedTrieRoot(raws)))
    expect(hex(b.logsBloom)).toBe('0x' + '00'.repeat(256))
    expect(hex((await h.app.getBlock(b.hash))!.hash)).toBe(hex(b.hash))
  })

  it('serves transactions and receipts', async () => {
    for (let i = 0; i < raws.length; i++) {
      const tx = createTxFromRLP(raws[i]!, { common: h.app.common })
      const hash = keccak256(raws[i]!)
      const t = (await h.app.getTransaction(hash))!
      expect(t.type).toBe(i)
      expect(hex(t.from)).toBe(DEV_ADDRESS)
      expect(hex(t.to!)).toBe(ADDRESS2)
      expect(t.nonce).toBe(BigInt(i))
      expect(t.value).toBe(BigInt(i + 1) * ETHER)
      expect(t.gas).toBe(21000n)
      expect(t.r).toBe(tx.r)
      expect(t.s).toBe(tx.s)
      expect(t.v).toBe(tx.v)
      expect(t.chainId).toBe(9000n)
      expect(t.blockNumber).toBe(1)
      expect(t.transactionIndex).toBe(i)
      expect(hex(t.blockHash!)).toBe(hex((await h.app.getBlock(1))!.hash))
      expect(t.gasPrice).toBe([2n, 3n, 3n][i]! * GWEI)
      if (i === 2) {
        expect(t.maxFeePerGas).toBe(10n * GWEI)
        expect(t.maxPriorityFeePerGas).toBe(2n * GWEI)
      }
      const r = (await h.app.getReceipt(hash))!
      expect(r.status).toBe(1)
      expect(r.type).toBe(i)
      expect(r.gasUsed).toBe(21000n)
      expect(r.cumulativeGasUsed).toBe(21000n * BigInt(i + 1))
      expect(r.effectiveGasPrice).toBe(t.gasPrice)
      expect(r.contractAddress).toBeUndefined()
      expect(r.logs).toEqual([])
      expect(hex((await h.app.getTransactionByCometHash(sha256(raws[i]!)))!.hash)).toBe(hex(hash))
      expect(hex((await h.app.getTransactionByBlockAndIndex(1, i))!.hash)).toBe(hex(hash))
    }
    expect((await h.app.getBlockReceipts(1))!.map((r) => r.transactionIndex)).toEqual([0, 1, 2])
    expect((await h.app.getBlockTransactions(1))!.map((t) => t.nonce)).toEqual([0n, 1n, 2n])
    expect(await h.app.getTransaction(new Uint8Array(32))).toBeUndefined()
    expect(await h.app.getReceipt(new Uint8Array(32))).toBeUndefined()
  })

  it('emits the Evmos events', () => {
    const ev = resp.txResults[2]!.events
    expect(ev.map((e) => e.type)).toEqual(['ethereum_tx', 'ethereum', 'message'])
    expect(ev.every((e) => e.attributes.every((a) => a.index))).toBe(true)
    expect(attrs(ev[0]!)).toEqual({
      ethereumTxHash: hex(keccak256(raws[2]!)),
      txIndex: '2',
      txGasUsed: '21000',
      txHash: bytesToUpperHex(sha256(raws[2]!)),
      recipient: ADDRESS2,
      sender: DEV_ADDRESS,
      amount: (3n * ETHER).toString(),
      txType: '2',
    })
    expect(attrs(ev[1]!)).toEqual({ sender: DEV_ADDRESS, recipient: ADDRESS2 })
    expect(attrs(ev[2]!)).toEqual({ module: 'evm', sender: DEV_ADDRESS, action: '/ethermint.evm.v1.MsgEthereumTx' })
    expect(resp.events.map((e) => e.type)).toEqual(['block_bloom', 'fee_market'])
    expect(attrs(resp.events[0]!)).toEqual({ bloom: '0x' + '00'.repeat(256) })
    expect(attrs(resp.events[1]!)).toEqual({ base_fee: '1000000000' })
  })
})

describe('refused transactions', () => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness({ maxGas: 100_000n })
  })
  afterAll(() => h.close())

  it('does not execute them and gives them no EVM place', async () => {
    const c = h.app.common
    const good = sign1559(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: 1n })
    const badNonce = sign1559(c, DEV_KEY, { nonce: 5n, to: ADDRESS2, value: 1n })
    const poor = sign1559(c, KEY2, { nonce: 0n, to: DEV_ADDRESS, value: 1000n * ETHER })
    const cheap = sign1559(c, KEY2, { nonce: 0n, to: DEV_ADDRESS, value: 1n, maxFeePerGas: GWEI / 2n, maxPriorityFeePerGas: 0n })
    const garbage = new Uint8Array([0x02, 0xc0, 0x01])
    const big = sign1559(c, KEY2, { nonce: 0n, to: DEV_ADDRESS, value: 1n, gasLimit: 90_000n })
    const good2 = sign1559(c, KEY2, { nonce: 0n, to: DEV_ADDRESS, value: 1n })
    const resp = await h.finalize([good, badNonce, poor, cheap, garbage, big, good2])
    expect(resp.txResults.map((r) => r.code)).toEqual([
      TxCode.OK,
      TxCode.InvalidSequence,
      TxCode.InsufficientFunds,
      TxCode.InsufficientFee,
      TxCode.TxDecode,
      TxCode.OutOfGas,
      TxCode.OK,
    ])
    expect(resp.txResults[1]!.log).toBe(`nonce too high: address ${DEV_ADDRESS}, tx: 5 state: 1`)
    expect(resp.txResults[2]!.log).toMatch(/^insufficient funds for gas \* price \+ value: address 0x[0-9a-f]{40} have \d+ want \d+$/)
    expect(resp.txResults[3]!.log).toMatch(/^max fee per gas less than block base fee/)
    expect(resp.txResults[5]!.log).toMatch(/^gas limit reached/)
    for (const i of [1, 2, 3, 4, 5]) {
      expect(resp.txResults[i]!.events).toEqual([])
      expect(resp.txResults[i]!.gasUsed).toBe(0n)
      expect(resp.txResults[i]!.codespace).toBe('evm')
    }
    const b = (await h.app.getBlock(1))!
    expect(b.transactions.map(hex)).toEqual([hex(keccak256(good)), hex(keccak256(good2))])
    expect(attrs(resp.txResults[6]!.events[0]!).txIndex).toBe('1')
    expect(await h.app.getReceipt(keccak256(badNonce))).toBeUndefined()
    expect(await h.app.getTransaction(keccak256(badNonce))).toBeUndefined()
    expect((await h.app.getReceipt(keccak256(good2)))!.transactionIndex).toBe(1)
    // a nonce already used
    const again = await h.finalize([good])
    expect(again.txResults[0]!.code).toBe(TxCode.InvalidSequence)
    expect(again.txResults[0]!.log).toBe(`nonce too low: address ${DEV_ADDRESS}, tx: 0 state: 1`)
  })

  it('checks transactions before the pool', async () => {
    const c = h.app.common
    expect((await h.app.checkTx(sign1559(c, DEV_KEY, { nonce: 9n, to: ADDRESS2 }), 'new')).code).toBe(0)
    expect((await h.app.checkTx(new Uint8Array([1, 2, 3]), 'new')).code).toBe(TxCode.TxDecode)
    const tooBig = await h.app.checkTx(sign1559(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, gasLimit: 200_000n }), 'new')
    expect(tooBig.code).toBe(TxCode.OutOfGas)
    expect(tooBig.log).toMatch(/exceeds block gas limit/)
    const low = await h.app.checkTx(sign1559(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, gasLimit: 20_000n }), 'new')
    expect(low.code).toBe(TxCode.OutOfGas)
    expect(low.log).toBe('intrinsic gas too low: gas 20000, minimum needed 21000')
    // pre-EIP-155: the signed payload has no chain id and v is 27/28
    const fields = [0n, GWEI, 21000n, hexToBytes(ADDRESS2), 0n, new Uint8Array(0)]
    const sig = signHash(keccak256(RLP.encode(fields)), DEV_KEY)
    const unprotected = RLP.encode([...fields, 27 + sig.recovery, sig.r, sig.s])
    const r = await h.app.checkTx(unprotected, 'new')
    expect(r.code).toBe(TxCode.NotSupported)
    expect(r.log).toBe('only replay-protected (EIP-155) transactions allowed over RPC')
  })

  it('prepares and checks proposals within the block gas limit', async () => {
    const c = h.app.common
    const t = (n: bigint, gas = 40_000n) => sign1559(c, KEY2, { nonce: n, to: DEV_ADDRESS, gasLimit: gas })
    const txs = [t(1n), new Uint8Array([9]), t(2n), t(3n), t(4n)]
    const prepared = await h.app.prepareProposal({
      maxTxBytes: 1_000_000,
      txs,
      localLastCommit: { round: 0, votes: [] },
      height: 3,
      time: { seconds: 0, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20),
    })
    expect(prepared.txs.map(hex)).toEqual([hex(txs[0]!), hex(txs[2]!)])
    const proposal = (list: Uint8Array[]) => ({
      txs: list,
      proposedLastCommit: { round: 0, votes: [] },
      hash: new Uint8Array(32),
      height: 3,
      time: { seconds: 0, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20),
    })
    expect((await h.app.processProposal(proposal(prepared.txs))).accept).toBe(true)
    expect((await h.app.processProposal(proposal(txs))).accept).toBe(false)
    expect((await h.app.processProposal(proposal([t(1n), t(2n), t(3n)]))).accept).toBe(false)
  })
})
