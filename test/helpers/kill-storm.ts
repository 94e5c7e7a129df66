/**
 * A kill storm (issue 27): the real binary, `nodectl start --dev --home <home>` (or another
 * {@link StormTarget}: nodectl and CometBFT), under load from several senders (ethers wallets,
 * eth_sendRawTransaction), SIGKILLed at random moments and started again on the same home, `kills` times. Every receipt the node returned is recorded whole; after each restart every
 * recorded receipt must come back identical from eth_getTransactionReceipt, every block that held one
 * must keep its hash (eth_getBlockByNumber), and the chain must go on: the next kill waits for new
 * receipts. The kill moments come from a seeded PRNG (mulberry32) so a failing run names its seed.
 *
 * Every listener binds port 0 and the banner says where: no port is chosen ahead (test/helpers/ports.ts).
 * Receipts are looked for after each new head (an eth_subscribe newHeads WebSocket), never on a timer.
 * Used by test/e2e/kill-storm.test.ts (bounded, in CI) and `npm run bench -- --kill-storm N`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { JsonRpcProvider, Wallet } from 'ethers'
import WebSocket from 'ws'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { REPO_ROOT } from './repo-root.js'
import { seededRandom } from './seeded-random.js'

/** What a kill storm loads and kills: by default `nodectl start --dev --home <home>`. */
export interface StormTarget {
  /** Starts it, or starts again what a kill stopped; resolves once EVM clients are served. */
  start(): Promise<StormNode>
  /** Stops everything at the end of the storm. */
  stop(node: StormNode): Promise<void>
}

/** A started target: where EVM clients connect, and the process the storm SIGKILLs. */
export interface StormNode {
  child: ChildProcess
  url: string
  wsUrl: string
  /** Recent output lines, for a failure report. */
  output: string[]
}

/** What a kill storm does. */
export interface KillStormOptions {
  /** Home of the default target's node, kept across restarts (created by the first start). */
  home: string
  /** Another target than the dev node on `home` (e.g. nodectl --abci under CometBFT). */
  target?: StormTarget
  /** SIGKILLs, each followed by a restart. */
  kills: number
  /** Seed of the PRNG that draws the kill moments. */
  seed: number
  /** Dev accounts sending (1..10). */
  senders: number
  /** Transactions of one sender sent and not yet mined, at most. */
  window: number
  /** A kill comes after this many acknowledged sends since the restart, drawn in [min, max]. */
  sendsBeforeKill: readonly [min: number, max: number]
  /** …and then after a delay drawn in [0, max] ms, so the kill lands anywhere in a height. */
  maxKillDelayMs: number
  /** Longest wait for a start, or for the chain to commit a sent transaction, in ms. */
  stallTimeoutMs: number
  /** Progress lines (one per kill); default none. */
  log?: (line: string) => void
  /** Environment of the node (e.g. NODECTL_LOG_LEVEL). */
  env?: Record<string, string>
}

/** A recorded receipt that did not come back identical after a restart. */
export interface LostReceipt {
  txHash: string
  /** After which restart (1-based). */
  restart: number
  recorded: unknown
  returned: unknown
}

/** What a kill storm did and found. */
export interface KillStormResult {
  seed: number
  kills: number
  /** Transactions the node acknowledged (eth_sendRawTransaction answered a hash), each counted once. */
  sent: number
  /**
   * Acknowledged again: a transaction a crash dropped from the pool is signed again with the same nonce,
   * and so is the same transaction (same bytes, same hash).
   */
  resent: number
  /** Receipts the node returned and the storm recorded. */
  receipts: number
  /** Receipt comparisons after restarts (each recorded receipt, after every restart that followed it). */
  receiptsChecked: number
  /** Block-hash comparisons after restarts. */
  blocksChecked: number
  /** Recorded receipts not returned identically, or blocks whose hash changed: must be empty. */
  lost: LostReceipt[]
  /** Acknowledged transactions still without a receipt at the end: the pool is not persisted, so a crash drops what waited. */
  dropped: number
  /** Sends the node refused while it was up (not a kill's doing). */
  sendErrors: string[]
  /** Highest block at the end. */
  height: number
}

/** Requests per JSON-RPC batch (the server's default batch-request-limit is 1000). */
const BATCH = 200
/** Output lines of the node kept for a failure report. */
const KEPT_LINES = 60
/** Fees every storm transaction offers: far above the dev chain's base fee, so each is includable at once. */
const FEES = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1n, gasLimit: 21_000n }

type Json = Record<string, unknown>

type Running = StormNode

/** A transaction sent and not yet seen in a receipt. */
interface InFlight {
  hash: string
  sender: number
  /** The generation (0 = before the first kill) that sent it. */
  generation: number
  nonce: number
}

export async function runKillStorm(opts: KillStormOptions): Promise<KillStormResult> {
  const random = seededRandom(opts.seed)
  const log = opts.log ?? (() => {})
  const accounts = devAccounts(opts.senders)
  const recorded = new Map<string, Json>()
  const blockHashes = new Map<string, string>()
  const inFlight = new Map<string, InFlight>()
  const result: KillStormResult = {
    seed: opts.seed,
    kills: 0,
    sent: 0,
    resent: 0,
    receipts: 0,
    receiptsChecked: 0,
    blocksChecked: 0,
    lost: [],
    dropped: 0,
    sendErrors: [],
    height: 0,
  }
  const target = opts.target ?? { start: () => startNode(opts), stop: stopNode }
  let node = await target.start()
  try {
    for (let generation = 0; generation <= opts.kills; generation++) {
      if (generation > 0) {
        node = await target.start()
        await checkRecorded(node.url, generation, recorded, blockHashes, result)
        if (result.lost.length > 0) break
      }
      const last = generation === opts.kills
      const killAfter = last ? undefined : drawInt(random, opts.sendsBeforeKill[0], opts.sendsBeforeKill[1])
      const delayMs = Math.floor(random() * (opts.maxKillDelayMs + 1))
      const { sent, receipts } = await runGeneration(node, {
        generation,
        accounts,
        opts,
        inFlight,
        recorded,
        blockHashes,
        result,
        killAfter,
        delayMs,
      })
      log(
        last
          ? `final run: ${sent} sent, ${receipts} receipts; ${result.receipts} recorded in all`
          : `kill ${generation + 1}/${opts.kills} after ${sent} sends (+${delayMs} ms), ${receipts} receipts since the restart; ${result.receipts} recorded, ${inFlight.size} waiting`,
      )
      if (!last) result.kills++
    }
    // The last generation ends once every sender's window is drained: what still waits was dropped by a crash.
    result.dropped = inFlight.size
    result.height = Number(await call<string>(node.url, 'eth_blockNumber'))
  } finally {
    await target.stop(node)
  }
  return result
}

/** Integer in [min, max]. */
function drawInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1))
}

interface GenerationContext {
  generation: number
  accounts: ReturnType<typeof devAccounts>
  opts: KillStormOptions
  inFlight: Map<string, InFlight>
  recorded: Map<string, Json>
  blockHashes: Map<string, string>
  result: KillStormResult
  /** Acknowledged sends of this generation after which the node is killed; undefined = the last generation. */
  killAfter: number | undefined
  delayMs: number
}

/**
 * Loads the node until the kill (after `killAfter` acknowledged sends and a first receipt of this
 * generation, then `delayMs`), or, in the last generation, until each sender has had `window` more
 * transactions mined.
 */
async function runGeneration(node: Running, g: GenerationContext): Promise<{ sent: number; receipts: number }> {
  const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 })
  const chainId = (await provider.getNetwork()).chainId
  const wallets = g.accounts.map((a) => new Wallet(a.privateKey))
  const pendingNonce = async (s: number): Promise<number> =>
    Number(await call<string>(node.url, 'eth_getTransactionCount', [g.accounts[s]!.address, 'pending']))
  const nonces = await Promise.all(wallets.map((_, s) => pendingNonce(s)))
  /** Per sender, the highest nonce of the earlier generations' transactions still waiting at the restart (-1: none). */
  const waitedAtStart = wallets.map((_, s) => Math.max(-1, ...[...g.inFlight.values()].filter((t) => t.sender === s).map((t) => t.nonce)))
  let sent = 0
  let receipts = 0
  /** Receipts of this generation's transactions, by sender. */
  const mined = new Array<number>(wallets.length).fill(0)
  /** This generation's transactions of `sender` still waiting. */
  const waitingOf = (sender: number): number =>
    [...g.inFlight.values()].filter((t) => t.sender === sender && t.generation === g.generation).length
  let killScheduled = false
  let dead = false
  let failure: Error | undefined

  // Whatever changes (a sweep, a send, the exit, the stall timer) wakes every waiter.
  let wake: () => void = () => {}
  let changed = new Promise<void>((r) => (wake = r))
  const notify = (): void => {
    const w = wake
    changed = new Promise<void>((r) => (wake = r))
    w()
  }
  const onExit = (): void => {
    dead = true
    if (!killScheduled) failure ??= new Error(`the node exited without being killed (generation ${g.generation})\n${report(node)}`)
    notify()
  }
  if (node.child.exitCode !== null || node.child.signalCode !== null) onExit()
  else node.child.once('exit', onExit)

  const maybeKill = (): void => {
    if (killScheduled || g.killAfter === undefined || sent < g.killAfter || mined.every((m) => m === 0)) return
    killScheduled = true
    setTimeout(() => node.child.kill('SIGKILL'), g.delayMs)
  }
  const done = (): boolean => failure !== undefined || dead || (g.killAfter === undefined && mined.every((m) => m >= g.opts.window))

  // Receipts: swept after every new head, one sweep at a time.
  let sweeping = false
  let again = false
  const sweep = async (): Promise<void> => {
    if (sweeping) {
      again = true
      return
    }
    sweeping = true
    try {
      do {
        again = false
        const waiting = [...g.inFlight.values()]
        for (let i = 0; i < waiting.length; i += BATCH) {
          const part = waiting.slice(i, i + BATCH)
          const found = await batch<Json | null>(
            node.url,
            part.map((t) => ['eth_getTransactionReceipt', [t.hash]]),
          )
          for (const [j, receipt] of found.entries()) {
            const t = part[j]!
            if (!receipt || !g.inFlight.has(t.hash)) continue
            g.inFlight.delete(t.hash)
            g.recorded.set(t.hash, receipt)
            g.blockHashes.set(receipt.blockNumber as string, receipt.blockHash as string)
            g.result.receipts++
            receipts++
            if (t.generation === g.generation) mined[t.sender]!++
          }
        }
      } while (again)
    } catch (err) {
      // Killed under the sweep: what was not read is read after the restart.
      if (!killScheduled) failure ??= new Error(`receipt sweep failed: ${(err as Error).message}\n${report(node)}`)
    } finally {
      sweeping = false
      maybeKill()
      notify()
    }
  }

  const senderLoop = async (s: number): Promise<void> => {
    while (!done()) {
      const waiting = waitingOf(s)
      const full = waiting >= g.opts.window || (g.killAfter === undefined && mined[s]! + waiting >= g.opts.window)
      if (full) {
        await changed
        continue
      }
      const nonce = nonces[s]!
      const to = g.accounts[(s + 1) % g.accounts.length]!.address
      const raw = await wallets[s]!.signTransaction({ to, value: 1n, nonce, chainId, type: 2, ...FEES })
      try {
        const hash = (await provider.send('eth_sendRawTransaction', [raw])) as string
        nonces[s] = nonce + 1
        if (g.inFlight.has(hash)) g.result.resent++
        else g.result.sent++
        g.inFlight.set(hash, { hash, sender: s, generation: g.generation, nonce })
        sent++
        maybeKill()
      } catch (err) {
        if (killScheduled) return
        // A restarted node serves EVM clients while consensus finishes the height its WAL had decided: a
        // pending nonce read before that block lands is overtaken by the block's own transactions (sent
        // before the kill). A send may therefore be refused as a used nonce when a transaction of that nonce
        // or a later one was waiting at the restart; the sender goes on from the node's nonce, as a client
        // of any chain whose blocks come from consensus.
        const overtaken = /nonce (too low|has already been used)/.test((err as Error).message) && nonce <= waitedAtStart[s]!
        // Refused while the node is up: note it and go on from the node's nonce.
        if (!overtaken) g.result.sendErrors.push(`${g.accounts[s]!.address} nonce ${nonce}: ${(err as Error).message.slice(0, 200)}`)
        nonces[s] = await pendingNonce(s)
      }
    }
  }

  const heads = await subscribeHeads(node.wsUrl, () => void sweep())
  // A generation that records no receipt for stallTimeoutMs fails: the chain must go on.
  let progress = -1
  const stall = setInterval(() => {
    if (g.result.receipts === progress && !dead)
      failure ??= new Error(`no receipt for ${g.opts.stallTimeoutMs} ms in generation ${g.generation}\n${report(node)}`)
    progress = g.result.receipts
    notify()
  }, g.opts.stallTimeoutMs)
  try {
    // A sweep first: transactions of the last generation that the restarted node mined are found at once.
    await sweep()
    const loops = Promise.all(wallets.map((_, s) => senderLoop(s)))
    while (!done()) await changed
    await loops
    if (failure) throw failure
    return { sent, receipts }
  } finally {
    clearInterval(stall)
    heads.close()
    provider.destroy()
  }
}

/** After a restart: every recorded receipt identical, every block that held one with the same hash. */
async function checkRecorded(
  url: string,
  restart: number,
  recorded: Map<string, Json>,
  blockHashes: Map<string, string>,
  result: KillStormResult,
): Promise<void> {
  const hashes = [...recorded.keys()]
  for (let i = 0; i < hashes.length; i += BATCH) {
    const part = hashes.slice(i, i + BATCH)
    const returned = await batch<Json | null>(
      url,
      part.map((h) => ['eth_getTransactionReceipt', [h]]),
    )
    for (const [j, receipt] of returned.entries()) {
      const txHash = part[j]!
      result.receiptsChecked++
      if (JSON.stringify(receipt) !== JSON.stringify(recorded.get(txHash)))
        result.lost.push({ txHash, restart, recorded: recorded.get(txHash), returned: receipt })
    }
  }
  const blocks = [...blockHashes.entries()]
  for (let i = 0; i < blocks.length; i += BATCH) {
    const part = blocks.slice(i, i + BATCH)
    const returned = await batch<Json | null>(
      url,
      part.map(([n]) => ['eth_getBlockByNumber', [n, false]]),
    )
    for (const [j, block] of returned.entries()) {
      const [number, hash] = part[j]!
      result.blocksChecked++
      if (block?.hash !== hash) result.lost.push({ txHash: `block ${number}`, restart, recorded: hash, returned: block?.hash ?? null })
    }
  }
}

/** Spawns `nodectl start --dev --home <home>` with every listener on port 0; resolves with the banner's URLs. */
async function startNode(opts: KillStormOptions): Promise<Running> {
  const args = [join(REPO_ROOT, 'bin/run.js'), 'start', '--dev', '--home', opts.home]
  for (const [flag, value] of [
    ['--json-rpc.address', '127.0.0.1:0'],
    ['--json-rpc.ws-address', '127.0.0.1:0'],
    ['--rpc.laddr', 'tcp://127.0.0.1:0'],
    ['--p2p.laddr', 'tcp://127.0.0.1:0'],
  ])
    args.push(flag!, value!)
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const output: string[] = []
  const keep = (chunk: Buffer): void => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean))
    if (output.length > KEPT_LINES) output.splice(0, output.length - KEPT_LINES)
  }
  child.stderr!.on('data', keep)
  const banner = await new Promise<string>((resolve, reject) => {
    let text = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no banner within ${opts.stallTimeoutMs} ms\n${output.join('\n')}`))
    }, opts.stallTimeoutMs)
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8')
      if (!text.includes('Press Ctrl-C to stop.')) return
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      child.off('close', onClose)
      resolve(text)
    }
    const onClose = (code: number | null): void => {
      clearTimeout(timer)
      reject(new Error(`nodectl start exited with ${code} before its banner\n${output.join('\n')}`))
    }
    child.stdout!.on('data', onData)
    child.once('close', onClose)
  })
  child.stdout!.resume()
  const url = /^EVM JSON-RPC:\s+(http:\/\/\S+)/m.exec(banner)?.[1]
  const wsUrl = /^EVM WebSocket:\s+(ws:\/\/\S+)/m.exec(banner)?.[1]
  if (!url || !wsUrl) throw new Error(`no JSON-RPC URLs in the banner:\n${banner}`)
  return { child, url, wsUrl, output }
}

/** SIGINT, and SIGKILL if the node has not exited after a while. */
async function stopNode(node: Running): Promise<void> {
  const { child } = node
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGINT')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

function report(node: Running): string {
  return `--- node output ---\n${node.output.join('\n')}`
}

/** eth_subscribe newHeads; `onHead` runs on each head. Resolves once subscribed. */
async function subscribeHeads(url: string, onHead: () => void): Promise<{ close(): void }> {
  const ws = new WebSocket(url)
  ws.on('error', () => {}) // the node is killed under it
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as { method?: string }
    if (msg.method === 'eth_subscription') onHead()
  })
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
  return { close: () => ws.terminate() }
}

async function call<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const [result] = await batch<T>(url, [[method, params]])
  return result as T
}

/** One JSON-RPC batch; rejects on any error answer. */
async function batch<T>(url: string, requests: [method: string, params: unknown[]][]): Promise<T[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(requests.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))),
  })
  const replies = (await res.json()) as { id: number; result?: T; error?: { message: string } }[]
  const out = new Array<T>(requests.length)
  for (const r of replies) {
    if (r.error) throw new Error(`${requests[r.id]![0]}: ${r.error.message}`)
    out[r.id] = r.result as T
  }
  return out
}
