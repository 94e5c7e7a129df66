/**
 * The ABCI socket server under a stock CometBFT: `cometbft start --proxy_app tcp://…` on CometBFT's own
 * home drives a small counting application through the handshake, blocks, a transaction sent to its RPC
 * and a query, and stops when the application fails.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Comet38Client } from '@cosmjs/tendermint-rpc'
import { afterEach, expect, it } from 'vitest'
import type { Application, FinalizeBlockRequest } from '../../src/abci/application.js'
import { AbciServer } from '../../src/abci/server.js'
import { silentLogger } from '../../src/utils/logger.js'
import { describeWithCometbft } from '../helpers/cometbft.js'
import { pickPortBlock } from '../helpers/ports.js'

/** A block every few tens of milliseconds instead of CometBFT's default second. */
const FAST_COMMIT = 'timeout_commit = "50ms"'

const ok = { code: 0, data: new Uint8Array(), log: '', info: '', gasWanted: 1n, gasUsed: 1n, events: [], codespace: '' }

/** An application that counts transactions; its app hash is the count, its query answers it. */
class CountingApp implements Application {
  height = 0
  count = 0
  private pending = 0
  private readonly commitWaiters: { height: number; done: () => void }[] = []
  readonly finalized: FinalizeBlockRequest[] = []
  failAtHeight = Number.POSITIVE_INFINITY

  /** Resolves once `height` is committed. */
  committed(height: number): Promise<void> {
    if (this.height >= height) return Promise.resolve()
    return new Promise((done) => this.commitWaiters.push({ height, done }))
  }

  async info() {
    return { data: 'counter', version: '1', appVersion: 1n, lastBlockHeight: this.height, lastBlockAppHash: this.appHash(this.count) }
  }
  async initChain() {
    return { validators: [], appHash: this.appHash(0) }
  }
  async checkTx(tx: Uint8Array) {
    return { ...ok, code: tx.length > 0 ? 0 : 1 }
  }
  async prepareProposal(req: { txs: Uint8Array[] }) {
    return { txs: req.txs }
  }
  async processProposal() {
    return { accept: true }
  }
  async finalizeBlock(req: FinalizeBlockRequest) {
    if (req.height >= this.failAtHeight) throw new Error(`refusing height ${req.height}`)
    this.finalized.push(req)
    this.pending = this.count + req.txs.length
    return { events: [], txResults: req.txs.map(() => ok), validatorUpdates: [], appHash: this.appHash(this.pending) }
  }
  async commit() {
    this.count = this.pending
    this.height++
    for (const w of this.commitWaiters.filter((w) => w.height <= this.height)) w.done()
    return { retainHeight: 0 }
  }
  async query() {
    const value = new TextEncoder().encode(String(this.count))
    return { code: 0, log: '', info: '', index: 0n, key: new Uint8Array(), value, height: this.height, codespace: '' }
  }
  private appHash(count: number): Uint8Array {
    const hash = new Uint8Array(8)
    new DataView(hash.buffer).setBigUint64(0, BigInt(count))
    return hash
  }
}

describeWithCometbft('the ABCI server under a stock CometBFT', (bin) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function startNetwork(app: CountingApp, onFatal: (err: Error) => void = () => {}) {
    const dir = await mkdtemp(join(tmpdir(), 'nodectl-abci-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    execFileSync(bin, ['init', '--home', dir], { stdio: 'ignore' })
    const config = join(dir, 'config', 'config.toml')
    await writeFile(config, (await readFile(config, 'utf8')).replace('timeout_commit = "1s"', FAST_COMMIT))
    const server = await AbciServer.start(app, { address: { host: '127.0.0.1', port: 0 }, log: silentLogger, onFatal })
    cleanups.push(() => server.close())
    const port = await pickPortBlock(2)
    const output: string[] = []
    const child = spawn(
      bin,
      ['start', '--home', dir, '--proxy_app', server.url, `--rpc.laddr=tcp://127.0.0.1:${port}`, `--p2p.laddr=tcp://127.0.0.1:${port + 1}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => output.push(chunk.toString()))
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    cleanups.push(() => stop(child, exited))
    return { child, exited, output, rpcUrl: `http://127.0.0.1:${port}` }
  }

  it('runs the handshake, commits blocks, takes a transaction and answers a query', async () => {
    const app = new CountingApp()
    const { rpcUrl } = await startNetwork(app)
    await app.committed(1)
    const client = await Comet38Client.connect(rpcUrl)
    cleanups.push(async () => client.disconnect())
    const tx = new TextEncoder().encode('one transaction')
    const sent = await client.broadcastTxSync({ tx })
    expect(sent.code).toBe(0)
    const included = () => app.finalized.findIndex((b) => b.txs.some((t) => Buffer.from(t).equals(Buffer.from(tx))))
    while (included() < 0) await app.committed(app.height + 1)
    await app.committed(app.finalized[included()]!.height + 1)
    expect(app.count).toBe(1)
    const answer = await client.abciQuery({ path: '/count', data: new Uint8Array() })
    expect(new TextDecoder().decode(answer.value)).toBe('1')
    const info = await client.abciInfo()
    expect(info.data).toBe('counter')
  })

  it('stops CometBFT with the Exception it answers when the application fails', async () => {
    const app = new CountingApp()
    app.failAtHeight = 3
    let fatal: ((err: Error) => void) | undefined
    const failed = new Promise<Error>((done) => {
      fatal = done
    })
    const { exited, output } = await startNetwork(app, (err) => fatal!(err))
    expect((await failed).message).toBe('refusing height 3')
    await exited
    expect(output.join('')).toMatch(/refusing height 3/)
    expect(app.height).toBe(2)
  })
})

/** Stops a cometbft process (if it still runs) and waits for its exit. */
async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  await exited
}
