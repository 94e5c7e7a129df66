/**
 * An in-memory EthBackend double: four blocks (genesis, two with transactions, one empty), real
 * signed transactions of each type (signed with ethers so clients can check signatures), receipts
 * with logs, one pending transaction, and a tiny "EVM" for eth_call / eth_estimateGas.
 */
import { Transaction, Wallet, getBytes, hexlify, id, keccak256, toUtf8Bytes, AbiCoder } from 'ethers'
import type { EvmBlock, EvmLog, EvmReceipt, EvmTx } from '../../../src/evm/store/views.js'
import type { CallArgs, EthBackend, ExecutionOptions, HistoryRetention, LogQuery, SyncStatus } from '../../../src/api/eth/backend.js'
import type { AccessListResult, AccountProof, PoolContent } from '../../../src/api/eth/backend.js'
import { getCommon } from '../../../src/evm/common.js'
import type { SimulatedBlock } from '../../../src/evm/calls/simulate.js'
import { ExecutionRevertedError, VmExecutionError } from '../../../src/evm/errors.js'
import { describeForkConfig, type ForkConfig } from '../../../src/evm/fork-config.js'
import { LogMatches } from '../../../src/evm/store/log-matches.js'
import { NodeError } from '../../../src/utils/errors.js'

export const CHAIN_ID = 9000n
export const wallet = new Wallet('0x' + '11'.repeat(32))
export const SENDER = getBytes(wallet.address)
export const RECIPIENT = getBytes('0x' + '22'.repeat(20))
export const TOKEN = getBytes('0x' + '33'.repeat(20))
/** eth_call to this address reverts with `Error("nope")`. */
export const REVERTER = getBytes('0x' + '44'.repeat(20))
/** eth_call to this address fails with `out of gas`. */
export const BURNER = getBytes('0x' + '55'.repeat(20))
export const TRANSFER_TOPIC = getBytes(id('Transfer(address,address,uint256)'))
export const GENESIS_TIME = 1_700_000_000
const BASE_FEE = 1_000_000_000n
const GAS_LIMIT = 30_000_000n

const b32 = (label: string): Uint8Array => getBytes(keccak256(toUtf8Bytes(label)))
const pad32 = (bytes: Uint8Array): Uint8Array => {
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}

/** The 2048-bit bloom of a set of logs (yellow paper M3:2048). */
function bloomOf(logs: { address: Uint8Array; topics: Uint8Array[] }[]): Uint8Array {
  const bloom = new Uint8Array(256)
  const add = (item: Uint8Array): void => {
    const h = getBytes(keccak256(item))
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047
      bloom[256 - 1 - (bit >> 3)]! |= 1 << (bit & 7)
    }
  }
  for (const log of logs) {
    add(log.address)
    log.topics.forEach(add)
  }
  return bloom
}

async function signTx(fields: Record<string, unknown>): Promise<{ raw: string; tx: Transaction }> {
  const raw = await wallet.signTransaction({ chainId: CHAIN_ID, ...fields })
  return { raw, tx: Transaction.from(raw) }
}

function toEvmTx(tx: Transaction, location?: { block: EvmBlock; index: number }, baseFee?: bigint): EvmTx {
  const type = tx.type as 0 | 1 | 2
  const sig = tx.signature!
  const v = type === 0 ? (sig.networkV ?? BigInt(sig.v)) : BigInt(sig.yParity)
  let gasPrice = tx.gasPrice ?? 0n
  if (type === 2) {
    gasPrice =
      baseFee === undefined
        ? tx.maxFeePerGas!
        : baseFee + (tx.maxPriorityFeePerGas! < tx.maxFeePerGas! - baseFee ? tx.maxPriorityFeePerGas! : tx.maxFeePerGas! - baseFee)
  }
  return {
    hash: getBytes(tx.hash!),
    type,
    from: getBytes(tx.from!),
    to: tx.to === null ? undefined : getBytes(tx.to),
    nonce: BigInt(tx.nonce),
    gas: tx.gasLimit,
    value: tx.value,
    input: getBytes(tx.data),
    gasPrice,
    maxFeePerGas: type === 2 ? tx.maxFeePerGas! : undefined,
    maxPriorityFeePerGas: type === 2 ? tx.maxPriorityFeePerGas! : undefined,
    accessList:
      type === 0
        ? undefined
        : (tx.accessList ?? []).map((e) => ({ address: getBytes(e.address), storageKeys: e.storageKeys.map((k) => getBytes(k)) })),
    chainId: tx.chainId === 0n ? undefined : tx.chainId,
    v,
    r: BigInt(sig.r),
    s: BigInt(sig.s),
    blockNumber: location?.block.number,
    blockHash: location?.block.hash,
    transactionIndex: location?.index,
  }
}

interface Spec {
  tx: Transaction
  gasUsed: bigint
  status: 0 | 1
  logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }[]
}

/** The double. Fields are public so tests can poke at the chain. */
export class FakeBackend implements EthBackend {
  readonly chainId = CHAIN_ID
  readonly version = '0.1.0'
  blocks: EvmBlock[] = []
  txs = new Map<string, EvmTx>()
  receipts = new Map<string, EvmReceipt>()
  blockTxs = new Map<number, EvmTx[]>()
  blockReceipts = new Map<number, EvmReceipt[]>()
  pending = new Map<string, EvmTx>()
  balances = new Map<string, bigint>([[wallet.address.toLowerCase(), 10n ** 21n]])
  syncing: SyncStatus | undefined = undefined
  peers = 3
  /** Raw signed transactions by label, for tests that resubmit them. */
  raws: Record<string, string> = {}
  /** Calls seen by `call` (tests check the parsed args). */
  calls: { args: CallArgs; height: number; options: ExecutionOptions }[] = []

  static async create(): Promise<FakeBackend> {
    const backend = new FakeBackend()
    await backend.build()
    return backend
  }

  private async build(): Promise<void> {
    const legacy = await signTx({
      type: 0,
      to: '0x' + '22'.repeat(20),
      nonce: 0,
      gasLimit: 21000n,
      gasPrice: 2_000_000_000n,
      value: 10n ** 18n,
    })
    const dynamic = await signTx({
      type: 2,
      to: '0x' + '33'.repeat(20),
      nonce: 1,
      gasLimit: 100_000n,
      maxFeePerGas: 3_000_000_000n,
      maxPriorityFeePerGas: 500_000_000n,
      data: '0xa9059cbb' + '00'.repeat(12) + '22'.repeat(20) + '00'.repeat(31) + '64',
      accessList: [{ address: '0x' + '33'.repeat(20), storageKeys: ['0x' + '00'.repeat(31) + '01'] }],
    })
    const create = await signTx({ type: 1, nonce: 2, gasLimit: 200_000n, gasPrice: 1_500_000_000n, data: '0x6080604052', accessList: [] })
    const pending = await signTx({
      type: 2,
      to: '0x' + '22'.repeat(20),
      nonce: 3,
      gasLimit: 21000n,
      maxFeePerGas: 4_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      value: 1n,
    })
    this.raws = { legacy: legacy.raw, dynamic: dynamic.raw, create: create.raw, pending: pending.raw }
    const contract = getBytes('0x' + 'ab'.repeat(20))
    const transfer = {
      address: TOKEN,
      topics: [TRANSFER_TOPIC, pad32(SENDER), pad32(RECIPIENT)],
      data: getBytes(AbiCoder.defaultAbiCoder().encode(['uint256'], [100n])),
    }
    this.addBlock([])
    this.addBlock([
      { tx: legacy.tx, gasUsed: 21000n, status: 1, logs: [] },
      { tx: dynamic.tx, gasUsed: 51_000n, status: 1, logs: [transfer] },
    ])
    this.addBlock(
      [
        {
          tx: create.tx,
          gasUsed: 120_000n,
          status: 1,
          logs: [{ address: contract, topics: [b32('Deployed()')], data: new Uint8Array(0) }],
        },
      ],
      contract,
    )
    this.addBlock([])
    const p = toEvmTx(pending.tx)
    this.pending.set(pending.tx.hash!, p)
  }

  private addBlock(specs: Spec[], created?: Uint8Array): void {
    const number = this.blocks.length
    const parent = this.blocks[number - 1]
    const allLogs = specs.flatMap((s) => s.logs)
    const block: EvmBlock = {
      number,
      hash: b32(`block ${number}`),
      cometHash: number === 0 ? undefined : b32(`comet block ${number}`),
      parentHash: parent ? parent.hash : new Uint8Array(32),
      stateRoot: b32(`state ${number}`),
      transactionsRoot: b32(`txs ${number}`),
      receiptsRoot: b32(`receipts ${number}`),
      logsBloom: bloomOf(allLogs),
      miner: getBytes('0x' + '66'.repeat(20)),
      gasLimit: GAS_LIMIT,
      gasUsed: specs.reduce((sum, s) => sum + s.gasUsed, 0n),
      baseFeePerGas: BASE_FEE,
      timestamp: GENESIS_TIME + number * 2,
      size: 500 + specs.length * 200,
      extraData: new Uint8Array(0),
      mixHash: new Uint8Array(32),
      transactions: specs.map((s) => getBytes(s.tx.hash!)),
    }
    const txs: EvmTx[] = []
    const receipts: EvmReceipt[] = []
    let cumulative = 0n
    let logIndex = 0
    specs.forEach((spec, index) => {
      const tx = toEvmTx(spec.tx, { block, index }, BASE_FEE)
      cumulative += spec.gasUsed
      const logs: EvmLog[] = spec.logs.map((l) => ({
        ...l,
        blockNumber: number,
        blockHash: block.hash,
        transactionHash: tx.hash,
        transactionIndex: index,
        logIndex: logIndex++,
        removed: false,
      }))
      const receipt: EvmReceipt = {
        transactionHash: tx.hash,
        transactionIndex: index,
        blockHash: block.hash,
        blockNumber: number,
        from: tx.from,
        to: tx.to,
        contractAddress: tx.to === undefined ? created : undefined,
        cumulativeGasUsed: cumulative,
        gasUsed: spec.gasUsed,
        effectiveGasPrice: tx.gasPrice,
        logs,
        logsBloom: bloomOf(spec.logs),
        status: spec.status,
        type: tx.type,
      }
      txs.push(tx)
      receipts.push(receipt)
      this.txs.set(spec.tx.hash!, tx)
      this.receipts.set(spec.tx.hash!, receipt)
    })
    this.blocks.push(block)
    this.blockTxs.set(number, txs)
    this.blockReceipts.set(number, receipts)
  }

  latestHeight(): number {
    return this.blocks.length - 1
  }
  async getBlockByNumber(height: number): Promise<EvmBlock | undefined> {
    return this.blocks[height]
  }
  async getBlockByHash(hash: Uint8Array): Promise<EvmBlock | undefined> {
    const key = Buffer.from(hash).toString('hex')
    return this.blocks.find((b) => Buffer.from(b.hash).toString('hex') === key)
  }
  async getBlockTransactions(block: EvmBlock): Promise<EvmTx[]> {
    return this.blockTxs.get(block.number) ?? []
  }
  async getBlockReceipts(block: EvmBlock): Promise<EvmReceipt[]> {
    return this.blockReceipts.get(block.number) ?? []
  }
  async getTransaction(hash: Uint8Array): Promise<EvmTx | undefined> {
    const key = '0x' + Buffer.from(hash).toString('hex')
    return this.txs.get(key) ?? this.pending.get(key)
  }
  async getReceipt(hash: Uint8Array): Promise<EvmReceipt | undefined> {
    return this.receipts.get('0x' + Buffer.from(hash).toString('hex'))
  }
  async getLogs(query: LogQuery): Promise<LogMatches> {
    const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b))
    const out = new LogMatches()
    for (let h = query.fromBlock; h <= query.toBlock; h++) {
      const logs = (this.blockReceipts.get(h) ?? []).flatMap((r) => r.logs)
      const indexes: number[] = []
      logs.forEach((log, i) => {
        if (query.addresses.length > 0 && !query.addresses.some((a) => eq(a, log.address))) return
        const match = query.topics.every(
          (options, i) => options === null || (log.topics[i] !== undefined && options.some((t) => eq(t, log.topics[i]!))),
        )
        if (match) indexes.push(i)
      })
      out.add(logs, indexes)
    }
    return out
  }
  async getBalance(address: Uint8Array): Promise<bigint> {
    return this.balances.get('0x' + Buffer.from(address).toString('hex')) ?? 0n
  }
  async getNonce(address: Uint8Array, height: number): Promise<bigint> {
    if (!Buffer.from(address).equals(Buffer.from(SENDER))) return 0n
    return BigInt([0, 2, 3, 3][height] ?? 3)
  }
  async getCode(address: Uint8Array): Promise<Uint8Array> {
    return Buffer.from(address).equals(Buffer.from(TOKEN)) ? getBytes('0x6080') : new Uint8Array(0)
  }
  async getStorageAt(_address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    return slot[31] === 1 ? pad32(new Uint8Array([0x2a])) : new Uint8Array(32)
  }
  async getPendingNonce(address: Uint8Array): Promise<bigint> {
    return (await this.getNonce(address, this.latestHeight())) + (Buffer.from(address).equals(Buffer.from(SENDER)) ? 1n : 0n)
  }
  async call(args: CallArgs, height: number, options: ExecutionOptions): Promise<Uint8Array> {
    this.calls.push({ args, height, options })
    const to = args.to === undefined ? undefined : Buffer.from(args.to)
    if (to?.equals(Buffer.from(REVERTER))) {
      throw new ExecutionRevertedError(getBytes('0x08c379a0' + AbiCoder.defaultAbiCoder().encode(['string'], ['nope']).slice(2)), 'nope')
    }
    if (to?.equals(Buffer.from(BURNER))) throw new VmExecutionError('out of gas')
    return pad32(new Uint8Array([height]))
  }
  async estimateGas(args: CallArgs, height: number, options: ExecutionOptions): Promise<bigint> {
    await this.call(args, height, options)
    return 21_000n + BigInt(args.input?.length ?? 0) * 16n
  }
  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    let tx: Transaction
    try {
      tx = Transaction.from('0x' + Buffer.from(raw).toString('hex'))
    } catch {
      throw new NodeError('rlp: value size exceeds available input length')
    }
    if (this.txs.has(tx.hash!) || this.pending.has(tx.hash!)) throw new NodeError('already known')
    if (BigInt(tx.nonce) < 3n) throw new NodeError(`nonce too low: next nonce 3, tx nonce ${tx.nonce}`)
    this.pending.set(tx.hash!, toEvmTx(tx))
    return getBytes(tx.hash!)
  }
  async suggestGasTipCap(): Promise<bigint> {
    return 100_000_000n
  }
  calcNextBaseFee(parent: EvmBlock): bigint {
    // EIP-1559 with elasticity 2, denominator 8 (the fake's gas use is far below target).
    const target = parent.gasLimit / 2n
    if (parent.gasUsed === target) return parent.baseFeePerGas
    if (parent.gasUsed > target) return parent.baseFeePerGas + (parent.baseFeePerGas * (parent.gasUsed - target)) / target / 8n
    return parent.baseFeePerGas - (parent.baseFeePerGas * (target - parent.gasUsed)) / target / 8n
  }
  /** The real description of Cancun rules, on the fake chain's genesis. */
  async forkConfig(): Promise<ForkConfig> {
    return describeForkConfig(getCommon(this.chainId), this.blocks[0]!.hash)
  }
  historyRetention(): HistoryRetention {
    return { state: { oldestBlock: 0 }, blocks: { oldestBlock: 0 } }
  }
  syncStatus(): SyncStatus | undefined {
    return this.syncing
  }
  accounts(): Uint8Array[] {
    return []
  }
  coinbase(): Uint8Array | undefined {
    return this.etherbase ?? getBytes('0x' + '66'.repeat(20))
  }
  /** A well-formed proof of nothing in particular (the real ones are checked end to end). */
  async getProof(address: Uint8Array, slots: Uint8Array[], _height: number): Promise<AccountProof> {
    const node = getBytes('0xc0')
    return {
      address,
      balance: this.balances.get(hexlify(address)) ?? 0n,
      nonce: 0n,
      codeHash: getBytes(keccak256('0x')),
      storageHash: getBytes(keccak256('0x80')),
      accountProof: [node],
      storageProof: slots.map((key) => ({ key, value: 0n, proof: [] })),
    }
  }
  /** eth_simulateV1 is tested against a real node (test/e2e/eth-simulate.test.ts). */
  async simulate(): Promise<SimulatedBlock[]> {
    throw new NodeError('the fake backend does not simulate')
  }
  async createAccessList(args: CallArgs, _height: number, _options: ExecutionOptions): Promise<AccessListResult> {
    return {
      accessList: args.to ? [{ address: args.to, storageKeys: [pad32(new Uint8Array([1]))] }] : [],
      gasUsed: 23_300n,
      vmError: undefined,
    }
  }
  async getPendingBlock(): Promise<{ block: EvmBlock; transactions: EvmTx[] }> {
    const parent = this.blocks[this.blocks.length - 1]!
    const transactions = [...this.pending.values()]
    return {
      block: { ...parent, number: parent.number + 1, parentHash: parent.hash, transactions: transactions.map((tx) => tx.hash) },
      transactions,
    }
  }
  txPoolContent(): PoolContent {
    return { pending: [...this.pending.values()], queued: [] }
  }
  txPoolContentFrom(address: Uint8Array): PoolContent {
    return { pending: [...this.pending.values()].filter((tx) => hexlify(tx.from) === hexlify(address)), queued: [] }
  }
  txPoolStatus(): { pending: number; queued: number } {
    return { pending: this.pending.size, queued: 0 }
  }
  /** Set by miner_setGasPrice / miner_setEtherbase. */
  minGasPrice = 0n
  etherbase: Uint8Array | undefined
  async setMinGasPrice(wei: bigint): Promise<void> {
    this.minGasPrice = wei
  }
  async setEtherbase(address: Uint8Array): Promise<void> {
    this.etherbase = address
  }
  peerCount(): number {
    return this.peers
  }
  listening(): boolean {
    return true
  }
}
