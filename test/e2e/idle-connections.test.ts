/**
 * Idle connections cannot take the descriptors a validator needs (issue 27, Severe #1): the real binary,
 * started under `ulimit -n 256`, gets more idle TCP connections than its limit on the EVM HTTP port and
 * on the consensus RPC port. Its listeners hold only their share of the descriptors
 * (rpc/descriptor-budget.ts) and close the rest at once, so the validator keeps signing and the chain
 * keeps committing while they are held, and fresh clients are served once they are released. Runs the
 * built `dist/` (see binary.test.ts); skipped when it has not been built.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { listenerShare } from '../../src/rpc/descriptor-budget.js'
import { ROOT } from '../helpers/cli.js'
import { rpc } from '../helpers/dev-node.js'
import { RawWsClient } from '../helpers/ws-client.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/start.js')) && existsSync(join(ROOT, 'dist/bundle/start.cjs'))
if (!BUILT) console.warn('test/e2e/idle-connections.test.ts skipped: dist/ is missing; run `npm run build` first')
/** Where the node cannot read its limit it assumes 1024 (descriptor-budget.ts), more than this test gives it. */
const LIMIT_READABLE = existsSync('/proc/self/limits')

/** The node's open-file limit (soft and hard): low enough that the idle connections below exceed it. */
const OPEN_FILE_LIMIT = 256
/** Idle connections opened to each of the two ports: more than the whole limit. */
const IDLE_PER_PORT = 300

/** Resolves with stdout once the banner is printed; rejects if the process exits first. */
function banner(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8')
      if (!text.includes('Press Ctrl-C to stop.')) return
      child.stdout!.off('data', onData)
      child.off('exit', onExit)
      resolve(text)
    }
    const onExit = (code: number | null): void => reject(new Error(`node exited (${code}) before its banner:\n${text}\n${stderr()}`))
    child.stdout!.on('data', onData)
    child.once('exit', onExit)
  })
}

/** The first URL with `scheme` on the banner row `label`. */
function urlOf(text: string, label: string, scheme: string): string {
  const m = new RegExp(`^${label}:\\s+(${scheme}://127\\.0\\.0\\.1:\\d+)`, 'm').exec(text)
  if (!m) throw new Error(`no ${label} URL in the banner:\n${text}`)
  return m[1]!
}

/** Idle TCP connections to one port, and how many of them the server has closed. */
interface IdleFlood {
  sockets: net.Socket[]
  closedByServer(): number
  /** Resolves once the server has closed at least `count` of them. */
  untilClosed(count: number): Promise<void>
}

/** Opens `count` connections to `url`'s port that never send a byte; resolves once each is connected or refused. */
async function openIdle(url: string, count: number): Promise<IdleFlood> {
  const port = Number(new URL(url).port)
  let closed = 0
  const waiters: (() => void)[] = []
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(port, '127.0.0.1')
          socket.on('error', () => {})
          // Reading (nothing arrives) so that the server's close is seen.
          socket.resume()
          socket.once('connect', () => resolve(socket))
          socket.once('close', () => {
            closed++
            for (const wake of waiters.splice(0)) wake()
            resolve(socket)
          })
        }),
    ),
  )
  return {
    sockets,
    closedByServer: () => closed,
    untilClosed: (n) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (closed >= n) resolve()
          else waiters.push(check)
        }
        check()
      }),
  }
}

/** Sends a transfer from dev account 0 over `ws` and resolves with its receipt once a block holds it (watched through newHeads). */
async function transferMined(ws: RawWsClient, heads: string): Promise<{ status: string; blockNumber: string }> {
  const from = devAccounts()[0]!.address
  const hash = await ws.call<string>('eth_sendTransaction', [{ from, to: `0x${'11'.repeat(20)}`, value: '0x1' }])
  for (;;) {
    const height = BigInt(await ws.call<string>('eth_blockNumber'))
    const receipt = await ws.call<{ status: string; blockNumber: string } | null>('eth_getTransactionReceipt', [hash])
    if (receipt) return receipt
    await ws.waitForNotification<{ number: string }>(heads, (n) => BigInt(n.result.number) > height, 30_000)
  }
}

describe.skipIf(!BUILT || !LIMIT_READABLE)('idle connections under a low open-file limit (the binary)', () => {
  let child: ChildProcess | undefined

  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })

  it('keep the chain committing while held, and fresh clients are served once they are released', async () => {
    const args = [
      join(ROOT, 'bin/run.js'),
      'start',
      '--dev',
      '--json-rpc.address',
      '127.0.0.1:0',
      '--json-rpc.ws-address',
      '127.0.0.1:0',
      '--rpc.laddr',
      'tcp://127.0.0.1:0',
      '--p2p.laddr',
      'tcp://127.0.0.1:0',
    ]
    // `ulimit -n` sets the soft and the hard limit, so Node.js cannot raise it at start.
    child = spawn('bash', ['-c', `ulimit -n ${OPEN_FILE_LIMIT} && exec "$0" "$@"`, process.execPath, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)))
    const text = await banner(child, () => stderr)
    const httpUrl = urlOf(text, 'EVM JSON-RPC', 'http')
    const wsUrl = urlOf(text, 'EVM WebSocket', 'ws')
    const cometUrl = urlOf(text, 'Consensus RPC', 'http')

    // A client connected before the flood watches the chain.
    const ws = await RawWsClient.connect(wsUrl)
    const heads = await ws.call<string>('eth_subscribe', ['newHeads'])
    expect((await transferMined(ws, heads)).status).toBe('0x1')

    const floods = [await openIdle(httpUrl, IDLE_PER_PORT), await openIdle(cometUrl, IDLE_PER_PORT)]
    // While they are held the validator still signs and the chain commits.
    const whileHeld = await transferMined(ws, heads)
    expect(whileHeld.status, stderr).toBe('0x1')
    // Each listener kept at most its share of the descriptors and closed the others at once.
    const share = listenerShare(OPEN_FILE_LIMIT)
    for (const flood of floods) await flood.untilClosed(IDLE_PER_PORT - share)
    expect(stderr).not.toMatch(/EMFILE/)

    for (const flood of floods) for (const socket of flood.sockets) socket.destroy()
    // A block later the node has long seen them close (and the queued ones admitted and closed too).
    const after = await transferMined(ws, heads)
    expect(BigInt(after.blockNumber)).toBeGreaterThan(BigInt(whileHeld.blockNumber))
    expect((await rpc<string>(httpUrl, 'eth_chainId')).result).toBe('0x7a69')
    const health = await fetch(`${cometUrl}/health`)
    expect(health.status).toBe(200)

    await ws.close()
    child.kill('SIGINT')
    expect(await exited, stderr).toBe(0)
  }, 90_000)
})
