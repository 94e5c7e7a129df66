/**
 * Test doubles and builders for the consensus tests: a tiny key/value Application whose state lives in
 * the node's Database (so it survives restarts; a stage of its own, written by its Commit), a FIFO Mempool,
 * deterministic validator keys, a genesis, and a node builder over a temp home.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { afterEach, beforeEach } from 'vitest'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BlockStore } from '../../../src/comet/block-store.js'
import type { ConsensusParams, ExecTxResult, ValidatorUpdate } from '../../../src/abci/types.js'
import type { ConsensusConfig } from '../../../src/config/node-config.js'
import type {
  Application,
  CheckTxResponse,
  FinalizeBlockRequest,
  FinalizeBlockResponse,
  InfoResponse,
  InitChainRequest,
  InitChainResponse,
  QueryRequest,
  QueryResponse,
} from '../../../src/abci/application.js'
import type { Mempool } from '../../../src/consensus/mempool.js'
import type { BlockSyncSource, FetchedBlock } from '../../../src/consensus/block-sync.js'
import type { ConsensusGenesis } from '../../../src/consensus/chain-state.js'
import { ConsensusEngine } from '../../../src/consensus/consensus-engine.js'
import type { ConsensusEventName, ConsensusEvents } from '../../../src/consensus/events.js'
import { testConsensusConfig } from '../../../src/consensus/options.js'
import { FilePV, type PrivValidator } from '../../../src/consensus/privval.js'
import type { ConsensusTransport } from '../../../src/consensus/transport.js'
import { sha256 } from '../../../src/crypto/index.js'
import { Database } from '../../../src/db/database.js'
import type { WriteStage } from '../../../src/db/write-stage.js'
import { metaKey } from '../../../src/db/prefixes.js'
import { keyFromSeed, type ValidatorKey } from '../../../src/keystore/validator-key.js'
import { bytesToUtf8, concatBytes, utf8ToBytes } from '../../../src/primitives/hex.js'
import { createLogger, silentLogger, type Logger } from '../../../src/utils/logger.js'
import { now } from '../../../src/utils/time.js'

export const CHAIN_ID = 'nodectl_31337-1'

/** Deterministic validator keys: seed i = 32 bytes of value i+1. */
export function makeKeys(n: number): ValidatorKey[] {
  return Array.from({ length: n }, (_, i) => keyFromSeed(new Uint8Array(32).fill(i + 1)))
}

export function defaultParams(): ConsensusParams {
  return {
    block: { maxBytes: 22_020_096n, maxGas: -1n },
    evidence: { maxAgeNumBlocks: 100_000n, maxAgeDurationNs: 172_800_000_000_000n, maxBytes: 1_048_576n },
    validator: { pubKeyTypes: ['ed25519'] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  }
}

export function makeGenesis(keys: ValidatorKey[], power = 10n): ConsensusGenesis {
  return {
    genesisTime: now(),
    chainId: CHAIN_ID,
    initialHeight: 1,
    consensusParams: defaultParams(),
    validators: keys.map((k) => ({ pubKey: k.publicKey, power })),
    appHash: new Uint8Array(0),
    appStateBytes: () => utf8ToBytes('{}'),
  }
}

function okResult(data: Uint8Array = new Uint8Array(0)): ExecTxResult {
  return {
    code: 0,
    data,
    log: '',
    info: '',
    gasWanted: 1n,
    gasUsed: 1n,
    events: [{ type: 'app', attributes: [{ key: 'key', value: 'v', index: true }] }],
    codespace: '',
  }
}

export interface KvAppOptions {
  /** Keep state only in memory (an app that forgets on restart: exercises handshake replay). */
  inMemory?: boolean
  /** Throw from commit() at this height once, before its write (a crash between the engine's block write and the app's Commit). */
  failCommitAt?: number
  /** Throw from commit() at this height once, after its write (a crash between the app's Commit and the engine's state save). */
  failAfterCommitAt?: number
  /** Validator updates to return from FinalizeBlock at a height. */
  validatorUpdates?: Map<number, ValidatorUpdate[]>
  /** Reject proposals (ProcessProposal) containing this tx. */
  rejectTx?: string
}

/**
 * A key/value app: tx `key=value` sets a key. The app hash changes only when a block has txs
 * (app hash = SHA-256(previous ‖ txs)), like an EVM app whose state root moves with executed txs.
 */
export class KvApp implements Application {
  height = 0
  appHash: Uint8Array = new Uint8Array(0)
  readonly kv = new Map<string, string>()
  finalized: number[] = []
  /** The `blockSize` of each FinalizeBlock request, by height. */
  readonly blockSizes = new Map<number, number | undefined>()
  private pending: { height: number; appHash: Uint8Array; sets: [string, string][] } | undefined
  private readonly stage: WriteStage

  constructor(
    private readonly db: Database,
    private readonly opts: KvAppOptions = {},
  ) {
    this.stage = db.createStage()
  }

  async load(): Promise<void> {
    if (this.opts.inMemory) return
    const h = await this.db.get(metaKey('kvapp:height'))
    if (h) this.height = Number(bytesToUtf8(h))
    const hash = await this.db.get(metaKey('kvapp:hash'))
    if (hash) this.appHash = hash
  }

  async info(): Promise<InfoResponse> {
    return { data: 'kvapp', version: '1', appVersion: 1n, lastBlockHeight: this.height, lastBlockAppHash: this.appHash }
  }

  async initChain(_req: InitChainRequest): Promise<InitChainResponse> {
    return { validators: [], appHash: new Uint8Array(0) }
  }

  async checkTx(_tx: Uint8Array): Promise<CheckTxResponse> {
    return { code: 0, data: new Uint8Array(0), log: '', gasWanted: 1n, gasUsed: 0n, events: [], codespace: '' }
  }

  async prepareProposal(req: { txs: Uint8Array[] }): Promise<{ txs: Uint8Array[] }> {
    return { txs: req.txs }
  }

  async processProposal(req: { txs: Uint8Array[] }): Promise<{ accept: boolean }> {
    if (this.opts.rejectTx && req.txs.some((t) => bytesToUtf8(t) === this.opts.rejectTx)) return { accept: false }
    return { accept: true }
  }

  async finalizeBlock(req: FinalizeBlockRequest): Promise<FinalizeBlockResponse> {
    this.blockSizes.set(req.height, req.blockSize)
    const sets: [string, string][] = req.txs.map((t) => {
      const [k, v] = bytesToUtf8(t).split('=')
      return [k ?? '', v ?? '']
    })
    const appHash = req.txs.length > 0 ? sha256(concatBytes(this.appHash, ...req.txs)) : this.appHash
    this.pending = { height: req.height, appHash, sets }
    this.stage.discard()
    if (!this.opts.inMemory) {
      this.stage.put(metaKey('kvapp:height'), utf8ToBytes(String(req.height)))
      this.stage.put(metaKey('kvapp:hash'), appHash)
      for (const [k, v] of sets) this.stage.put(metaKey('kvapp:kv:' + k), utf8ToBytes(v))
    }
    return {
      events: [{ type: 'block', attributes: [{ key: 'height', value: String(req.height), index: true }] }],
      txResults: req.txs.map(() => okResult()),
      validatorUpdates: this.opts.validatorUpdates?.get(req.height) ?? [],
      appHash,
    }
  }

  async commit(): Promise<{ retainHeight: number }> {
    const p = this.pending
    if (!p) throw new Error('commit without finalizeBlock')
    if (this.opts.failCommitAt === p.height) {
      this.opts.failCommitAt = undefined
      this.pending = undefined
      this.stage.discard()
      throw new Error(`simulated crash before the app's Commit of height ${p.height}`)
    }
    await this.stage.write()
    this.height = p.height
    this.appHash = p.appHash
    for (const [k, v] of p.sets) this.kv.set(k, v)
    this.finalized.push(p.height)
    this.pending = undefined
    if (this.opts.failAfterCommitAt === p.height) {
      this.opts.failAfterCommitAt = undefined
      throw new Error(`simulated crash after the app's Commit of height ${p.height}`)
    }
    return { retainHeight: 0 }
  }

  async query(_req: QueryRequest): Promise<QueryResponse> {
    return { code: 0, log: '', info: '', index: 0n, key: new Uint8Array(0), value: new Uint8Array(0), height: this.height, codespace: '' }
  }
}

/** A FIFO mempool: reap everything that fits, drop included txs on update. */
export class FakeMempool implements Mempool {
  txs: Uint8Array[] = []
  private readonly listeners = new Set<() => void>()

  add(tx: string | Uint8Array): void {
    this.txs.push(typeof tx === 'string' ? utf8ToBytes(tx) : tx)
    for (const l of [...this.listeners]) l()
  }

  reapMaxBytesMaxGas(maxBytes: number, _maxGas: bigint): Uint8Array[] {
    const out: Uint8Array[] = []
    let size = 0
    for (const tx of this.txs) {
      if (maxBytes >= 0 && size + tx.length + 6 > maxBytes) break
      size += tx.length + 6
      out.push(tx)
    }
    return out
  }

  size(): number {
    return this.txs.length
  }

  async lock(): Promise<() => void> {
    return () => {}
  }

  async update(_height: number, txs: Uint8Array[]): Promise<void> {
    const included = new Set(txs.map((t) => bytesToUtf8(t)))
    this.txs = this.txs.filter((t) => !included.has(bytesToUtf8(t)))
  }

  onTxsAvailable(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}

export async function makeTempDir(prefix = 'nodectl-consensus-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true })
}

export interface TestNode {
  dir: string
  engine: ConsensusEngine
  db: Database
  blockStore: BlockStore
  app: KvApp
  mempool: FakeMempool
  pv: FilePV | undefined
  stop(): Promise<void>
}

export interface StartNodeOptions {
  dir: string
  genesis: ConsensusGenesis
  key?: ValidatorKey
  transport?: ConsensusTransport
  config?: Partial<ConsensusConfig>
  app?: KvAppOptions
  logger?: Logger
  /** Do not call engine.start() (the caller does). */
  noStart?: boolean
  /** Re-gossip interval (default 100 ms in tests). */
  gossipIntervalMs?: number
  /** Replaces the node's signer, e.g. by a byzantine one around it. */
  wrapSigner?: (pv: FilePV) => PrivValidator
  /** Peers to block-sync from. */
  blockSync?: BlockSyncSource
}

/** Every consensus event: `waitFor` re-checks its condition after each of them. */
const CONSENSUS_EVENTS: Record<ConsensusEventName, true> = {
  NewRoundStep: true,
  NewRound: true,
  CompleteProposal: true,
  Vote: true,
  Polka: true,
  Lock: true,
  Relock: true,
  Unlock: true,
  ValidBlock: true,
  TimeoutPropose: true,
  TimeoutWait: true,
  NewBlock: true,
  NewBlockHeader: true,
  NewBlockEvents: true,
  NewEvidence: true,
  Tx: true,
  ValidatorSetUpdates: true,
  BlockSyncStatus: true,
  StateSyncStatus: true,
}

/** The re-checks of pending `waitFor` conditions. */
const rechecks = new Set<() => void>()

function recheckAll(): void {
  for (const recheck of [...rechecks]) recheck()
}

/** `logger` whose error lines also re-check: an engine that halts says so only in its log. */
function recheckOnError(logger: Logger): Logger {
  return {
    debug: (msg, ctx) => logger.debug(msg, ctx),
    info: (msg, ctx) => logger.info(msg, ctx),
    warn: (msg, ctx) => logger.warn(msg, ctx),
    error: (msg, ctx) => {
      logger.error(msg, ctx)
      recheckAll()
    },
    child: (fields) => recheckOnError(logger.child(fields)),
  }
}

/** Silent, or every line with CONSENSUS_TEST_LOG set. */
function defaultLogger(): Logger {
  return process.env.CONSENSUS_TEST_LOG ? createLogger({ level: 'debug', format: 'plain' }) : silentLogger
}

/** Builds a node over `dir` (db, WAL, signer state) and starts it. */
export async function startNode(opts: StartNodeOptions): Promise<TestNode> {
  const db = new Database({ path: join(opts.dir, 'db') })
  await db.open()
  const blockStore = new BlockStore(db)
  const app = new KvApp(db, opts.app)
  await app.load()
  const mempool = new FakeMempool()
  const pv = opts.key ? await FilePV.fromKey(opts.key, join(opts.dir, 'priv_validator_state.json')) : undefined
  const engine = new ConsensusEngine({
    config: { ...testConsensusConfig, ...opts.config },
    genesis: opts.genesis,
    db,
    blockStore,
    app,
    mempool,
    ...(pv ? { privValidator: opts.wrapSigner ? opts.wrapSigner(pv) : pv } : {}),
    ...(opts.transport ? { transport: opts.transport } : {}),
    ...(opts.blockSync ? { blockSync: opts.blockSync } : {}),
    walPath: join(opts.dir, 'cs.wal', 'wal'),
    gossipIntervalMs: opts.gossipIntervalMs ?? 100,
    logger: recheckOnError(opts.logger ?? defaultLogger()),
  })
  const offs = (Object.keys(CONSENSUS_EVENTS) as ConsensusEventName[]).map((name) => engine.events.on(name, recheckAll))
  if (!opts.noStart) await engine.start()
  let stopped = false
  return {
    dir: opts.dir,
    engine,
    db,
    blockStore,
    app,
    mempool,
    pv,
    async stop() {
      if (stopped) return
      stopped = true
      for (const off of offs) off()
      await engine.stop()
      await db.close()
    },
  }
}

/** A node folder per test, with the nodes started in it; see {@link nodeFolderPerTest}. */
export interface NodeFolder {
  /** The current test's folder. */
  readonly dir: string
  /** `startNode` in the folder; the node is stopped after the test. */
  start(opts: Omit<StartNodeOptions, 'dir'>): Promise<TestNode>
}

/**
 * Registers beforeEach / afterEach hooks: a fresh temp folder before each test; after it, every node the
 * test started there is stopped and the folder removed.
 */
export function nodeFolderPerTest(): NodeFolder {
  let dir = ''
  const started: TestNode[] = []
  beforeEach(async () => {
    dir = await makeTempDir()
  })
  afterEach(async () => {
    for (const node of started.splice(0)) await node.stop()
    await removeDir(dir)
  })
  return {
    get dir() {
      return dir
    },
    async start(opts) {
      const node = await startNode({ ...opts, dir })
      started.push(node)
      return node
    },
  }
}

/**
 * Waits until `cond` holds: checked now, then after every consensus event and error log line of the
 * running test nodes (whatever a condition reads changes with one), never on a timer; fails after
 * `timeoutMs` with `what`.
 */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  if (cond()) return
  await new Promise<void>((resolve, reject) => {
    const recheck = (): void => {
      if (!cond()) return
      rechecks.delete(recheck)
      clearTimeout(timer)
      resolve()
    }
    const timer = setTimeout(() => {
      rechecks.delete(recheck)
      reject(new Error(`timed out waiting for ${what}`))
    }, timeoutMs)
    rechecks.add(recheck)
  })
}

/** The next `name` event of `node` that `match` accepts. */
export function nextEvent<K extends ConsensusEventName>(
  node: TestNode,
  name: K,
  match: (e: ConsensusEvents[K]) => boolean = () => true,
): Promise<ConsensusEvents[K]> {
  return new Promise((resolve) => {
    const off = node.engine.events.on(name, (e) => {
      if (!match(e)) return
      off()
      resolve(e)
    })
  })
}

/** A logger that records every line (for asserting what was logged). */
export function recordingLogger(): { logger: Logger; lines: { level: string; msg: string; ctx: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; ctx: Record<string, unknown> }[] = []
  const make = (fields: Record<string, unknown>): Logger => ({
    debug: (msg, ctx) => lines.push({ level: 'debug', msg, ctx: { ...fields, ...ctx } }),
    info: (msg, ctx) => lines.push({ level: 'info', msg, ctx: { ...fields, ...ctx } }),
    warn: (msg, ctx) => lines.push({ level: 'warn', msg, ctx: { ...fields, ...ctx } }),
    error: (msg, ctx) => lines.push({ level: 'error', msg, ctx: { ...fields, ...ctx } }),
    child: (f) => make({ ...fields, ...f }),
  })
  return { logger: make({}), lines }
}

/**
 * Block sync from other test nodes' stores (what the p2p block-sync protocol does over libp2p). Reports no
 * peer until `connect()`; `tamperHeight` makes the first peer serve that height's commit with broken signatures.
 */
export class StoreBlockSource implements BlockSyncSource {
  connected = false
  readonly invalid: { peerId: string; reason: string }[] = []
  /** Height whose commit the first peer serves with a broken signature (once). */
  tamperHeight: number | undefined
  private readonly listeners = new Set<(height: number, peerId: string) => void>()

  /** `peers` is read at `connect()`: the nodes may be built after the source they use. */
  constructor(private readonly peersOf: () => { id: string; node: TestNode }[]) {}

  private get peers(): { id: string; node: TestNode }[] {
    return this.connected ? this.peersOf() : []
  }

  /** Starts reporting the peers' heights: each one's current height now, then each block it commits. */
  connect(): void {
    this.connected = true
    for (const { id, node } of this.peers) {
      node.engine.events.on('NewBlock', ({ block }) => {
        for (const l of [...this.listeners]) l(block.header.height, id)
      })
      for (const l of [...this.listeners]) l(node.blockStore.height(), id)
    }
  }

  maxPeerHeight(): number {
    return Math.max(0, ...this.peers.map((p) => p.node.blockStore.height()))
  }

  onPeerHeight(listener: (height: number, peerId: string) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async fetchBlock(height: number): Promise<FetchedBlock> {
    for (const { id, node } of this.peers) {
      if (node.blockStore.height() < height) continue
      const blockBytes = await node.blockStore.loadBlockBytes(height)
      const commit = (await node.blockStore.loadBlockCommit(height)) ?? (await node.blockStore.loadSeenCommit(height))
      if (!blockBytes || !commit) continue
      if (height === this.tamperHeight && !this.invalid.some((r) => r.peerId === id)) {
        const signatures = commit.signatures.map((s) => ({ ...s, signature: s.signature.map((b) => b ^ 1) }))
        return { blockBytes, commit: { ...commit, signatures }, peerId: id }
      }
      return { blockBytes, commit, peerId: id }
    }
    throw new Error(`no peer has block ${height}`)
  }

  reportInvalid(peerId: string, reason: string): void {
    this.invalid.push({ peerId, reason })
  }
}
