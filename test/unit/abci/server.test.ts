import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Application, CheckTxResponse } from '../../../src/abci/application.js'
import { AbciServer, type AbciServerOptions } from '../../../src/abci/server.js'
import { encodeFrame } from '../../../src/abci/wire/frame.js'
import {
  type AbciRequest,
  type AbciResponse,
  ApplySnapshotChunkResult,
  OfferSnapshotResult,
  VerdictStatus,
} from '../../../src/abci/wire/messages.js'
import { encodeRequest } from '../../../src/abci/wire/request-codec.js'
import { hexToBytes } from '../../../src/primitives/hex.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { captureLog } from '../../helpers/log-capture.js'
import { REQUESTS, RESPONSES } from './fixtures.js'
import { type Target, TestClient } from './socket-client.js'

const bytes = (hex: string): Uint8Array => hexToBytes('0x' + hex)
const flush: AbciRequest = { method: 'flush', value: {} }
const flushed: AbciResponse = { method: 'flush', value: {} }
const echo = (message: string): AbciRequest => ({ method: 'echo', value: { message } })
const checkTx = (tx: number): AbciRequest => ({ method: 'checkTx', value: { tx: Uint8Array.of(tx), type: 'new' } })
const accepted = (tx: number): CheckTxResponse => ({ ...RESPONSES.checkTx, code: 0, data: Uint8Array.of(tx) })

/** An application answering every method with the fixtures' values. */
function fakeApp(overrides: Partial<Application> = {}): Application {
  return {
    info: async () => RESPONSES.info,
    initChain: async () => RESPONSES.initChain,
    checkTx: async (tx) => accepted(tx[0]!),
    prepareProposal: async () => RESPONSES.prepareProposal,
    processProposal: async () => ({ accept: true }),
    finalizeBlock: async () => RESPONSES.finalizeBlock,
    commit: async () => RESPONSES.commit,
    query: async () => RESPONSES.query,
    ...overrides,
  }
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (err: Error) => void } {
  let resolve!: (value: T) => void
  let reject!: (err: Error) => void
  const promise = new Promise<T>((done, fail) => {
    resolve = done
    reject = fail
  })
  return { promise, resolve, reject }
}

const servers: AbciServer[] = []
const clients: TestClient[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.close()
  await Promise.all(servers.splice(0).map((s) => s.close()))
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function startServer(app: Application, options: Partial<AbciServerOptions> = {}): Promise<AbciServer> {
  const server = await AbciServer.start(app, {
    address: { host: '127.0.0.1', port: 0 },
    log: silentLogger,
    onFatal: () => {},
    ...options,
  })
  servers.push(server)
  return server
}

function targetOf(server: AbciServer): Target {
  const url = new URL(server.url)
  return url.protocol === 'unix:' ? { path: url.pathname } : { port: Number(url.port) }
}

async function connectTo(server: AbciServer): Promise<TestClient> {
  const client = await TestClient.connect(targetOf(server))
  clients.push(client)
  return client
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'abci-'))
  dirs.push(dir)
  return dir
}

describe('AbciServer', () => {
  it('answers echo and flush with the exact bytes CometBFT expects', async () => {
    const server = await startServer(fakeApp())
    expect(server.url).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/)
    const client = await connectTo(server)
    await client.write(bytes('060a040a026869' + '021200'))
    // Response{echo:{message:"hi"}} then Response{flush:{}}
    expect((await client.bytes(10)).toString('hex')).toBe('0612040a026869' + '021a00')
  })

  it('answers the v0.38.25 handshake Info with the application info', async () => {
    const client = await connectTo(await startServer(fakeApp()))
    await client.write(bytes('161a140a07302e33382e3235100b18082205322e302e30' + '021200'))
    expect(await client.answers(2)).toEqual([{ method: 'info', value: RESPONSES.info }, flushed])
  })

  it('answers every request type, the unused ones with their fixed answers', async () => {
    const client = await connectTo(await startServer(fakeApp({ processProposal: async () => ({ accept: false }) })))
    const requests = Object.entries(REQUESTS).map(([method, value]) => ({ method, value }) as AbciRequest)
    await client.send(...requests)
    const answers = await client.answers(requests.length)
    const expected: Record<string, unknown> = {
      echo: { message: 'hello' },
      flush: {},
      info: RESPONSES.info,
      initChain: RESPONSES.initChain,
      query: RESPONSES.query,
      checkTx: accepted(REQUESTS.checkTx.tx[0]!),
      commit: RESPONSES.commit,
      listSnapshots: { snapshots: [] },
      offerSnapshot: { result: OfferSnapshotResult.Reject },
      loadSnapshotChunk: { chunk: new Uint8Array() },
      applySnapshotChunk: { result: ApplySnapshotChunkResult.Abort, refetchChunks: [], rejectSenders: [] },
      prepareProposal: RESPONSES.prepareProposal,
      processProposal: { status: VerdictStatus.Reject },
      extendVote: { voteExtension: new Uint8Array() },
      verifyVoteExtension: { status: VerdictStatus.Accept },
      finalizeBlock: RESPONSES.finalizeBlock,
    }
    expect(answers).toEqual(requests.map((r) => ({ method: r.method, value: expected[r.method] })))
  })

  it('reads a message written one byte at a time', async () => {
    const client = await connectTo(await startServer(fakeApp()))
    const frames = Buffer.concat([encodeFrame(encodeRequest(checkTx(7))), encodeFrame(encodeRequest(flush))])
    for (const b of frames) await client.write(Uint8Array.of(b))
    expect(await client.answers(2)).toEqual([{ method: 'checkTx', value: accepted(7) }, flushed])
  })

  it('answers several requests of one write in order', async () => {
    const client = await connectTo(await startServer(fakeApp()))
    await client.send(echo('a'), checkTx(1), checkTx(2), echo('b'), flush)
    expect(await client.answers(5)).toEqual([
      { method: 'echo', value: { message: 'a' } },
      { method: 'checkTx', value: accepted(1) },
      { method: 'checkTx', value: accepted(2) },
      { method: 'echo', value: { message: 'b' } },
      flushed,
    ])
  })

  it('starts a request only once the one before it is answered, whatever the application takes', async () => {
    const events: string[] = []
    const first = deferred<CheckTxResponse>()
    const firstCalled = deferred<void>()
    const app = fakeApp({
      checkTx: async (tx) => {
        events.push(`call ${tx[0]}`)
        if (tx[0] !== 1) return accepted(tx[0]!)
        firstCalled.resolve()
        return first.promise
      },
    })
    const client = await connectTo(await startServer(app))
    await client.send(checkTx(1), checkTx(2), flush)
    await firstCalled.promise
    events.push('answer 1')
    first.resolve(accepted(1))
    expect(await client.answers(3)).toEqual([{ method: 'checkTx', value: accepted(1) }, { method: 'checkTx', value: accepted(2) }, flushed])
    expect(events).toEqual(['call 1', 'answer 1', 'call 2'])
  })

  it('drops a client that leaves mid-message and keeps serving the others', async () => {
    const pending = deferred<CheckTxResponse>()
    const called = deferred<void>()
    const app = fakeApp({
      checkTx: async (tx) => {
        if (tx[0] !== 1) return accepted(tx[0]!)
        called.resolve()
        return pending.promise
      },
    })
    const log = captureLog('debug')
    const server = await startServer(app, { log: log.logger })
    const leaving = await connectTo(server)
    const staying = await connectTo(server)
    const next = encodeFrame(encodeRequest(checkTx(2)))
    await leaving.write(Buffer.concat([encodeFrame(encodeRequest(checkTx(1))), next.subarray(0, 2)]))
    await called.promise
    leaving.close()
    await log.logged(/peer left in the middle of a message/)
    pending.resolve(accepted(1))
    await staying.send(checkTx(3), flush)
    expect(await staying.answers(2)).toEqual([{ method: 'checkTx', value: accepted(3) }, flushed])
    expect(log.lines.filter((l) => / (ERROR|WARN) /.test(l))).toEqual([])
  })

  it('answers an Exception when the application throws, stops serving and reports it once', async () => {
    const fatal = deferred<Error>()
    const onFatal = vi.fn((err: Error) => fatal.resolve(err))
    const log = captureLog('error')
    const server = await startServer(
      fakeApp({
        finalizeBlock: async () => {
          throw new Error('state root mismatch')
        },
      }),
      { log: log.logger, onFatal },
    )
    const client = await connectTo(server)
    const other = await connectTo(server)
    await client.send(checkTx(1), { method: 'finalizeBlock', value: REQUESTS.finalizeBlock }, flush, checkTx(2), flush)
    expect(await client.answers(2)).toEqual([
      { method: 'checkTx', value: accepted(1) },
      { method: 'exception', value: { error: 'finalizeBlock: state root mismatch' } },
    ])
    expect((await fatal.promise).message).toBe('state root mismatch')
    expect(await log.logged(/ABCI application failed/)).toMatch(/method=finalizeBlock/)
    await expect(TestClient.connect(targetOf(server))).rejects.toThrow(/ECONNREFUSED/)
    // A second failure on another connection is not reported again (nothing is started any more).
    await other.send({ method: 'finalizeBlock', value: REQUESTS.finalizeBlock }, flush)
    await server.close()
    expect(onFatal).toHaveBeenCalledTimes(1)
  })

  it('does not report a failure of a request the closing server dropped', async () => {
    const onFatal = vi.fn()
    const log = captureLog('error')
    const answer = deferred<CheckTxResponse>()
    const called = deferred<void>()
    const app = fakeApp({
      checkTx: () => {
        called.resolve()
        return answer.promise
      },
    })
    const server = await startServer(app, { onFatal, log: log.logger })
    const client = await connectTo(server)
    await client.send(checkTx(1), flush)
    await called.promise
    await server.close()
    // The application's database is closed under the request, which then fails.
    answer.reject(new Error('database closed'))
    await new Promise((turn) => setImmediate(turn))
    expect(onFatal).not.toHaveBeenCalled()
    expect(log.lines).toEqual([])
  })

  it('answers an undecodable request with an Exception and closes only that connection', async () => {
    const onFatal = vi.fn()
    const log = captureLog('error')
    const server = await startServer(fakeApp(), { onFatal, log: log.logger })
    const broken = await connectTo(server)
    const other = await connectTo(server)
    // Request with only field 4, reserved since ABCI 2.0: no known method.
    await broken.write(bytes('02' + '2200' + '021200'))
    const [answer] = await broken.answers(1)
    expect(answer).toMatchObject({ method: 'exception', value: { error: expect.stringMatching(/cannot decode request/) } })
    await broken.closed
    await log.logged(/does not decode/)
    await other.send(echo('still here'), flush)
    expect(await other.answers(2)).toEqual([{ method: 'echo', value: { message: 'still here' } }, flushed])
    expect(onFatal).not.toHaveBeenCalled()
  })

  it('closes a connection whose length prefix exceeds maxMessageBytes', async () => {
    const log = captureLog('error')
    const server = await startServer(fakeApp(), { maxMessageBytes: 100, log: log.logger })
    const client = await connectTo(server)
    await client.write(Uint8Array.of(101, 0x0a))
    await client.closed
    expect(await log.logged(/unreadable length prefix/)).toMatch(/101 bytes exceeds the limit of 100/)
    const other = await connectTo(server)
    await other.send(echo('x'), flush)
    expect(await other.answers(2)).toEqual([{ method: 'echo', value: { message: 'x' } }, flushed])
  })

  it('stops reading from a client that does not take its answers, and serves it all once it does', async () => {
    const log = captureLog('debug')
    const client = await connectTo(await startServer(fakeApp(), { log: log.logger }))
    client.socket.pause()
    const big = 'x'.repeat(64 * 1024)
    const count = 200
    const sent = client.send(...Array.from({ length: count }, (_, i) => echo(`${i}${big}`)), flush)
    await log.logged(/reading paused/)
    client.socket.resume()
    await sent
    const answers = await client.answers(count + 1)
    expect(answers.slice(0, count).map((a) => (a.method === 'echo' ? a.value.message : a.method))).toEqual(
      Array.from({ length: count }, (_, i) => `${i}${big}`),
    )
    expect(answers[count]).toEqual(flushed)
  })

  it('listens on a unix socket, replacing a stale socket file and removing it on close', async () => {
    const path = join(tempDir(), 'abci.sock')
    // A process that exits without closing its server leaves the socket file behind.
    const script = `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.exit(0))`
    expect(spawnSync(process.execPath, ['-e', script]).status).toBe(0)
    expect(statSync(path).isSocket()).toBe(true)
    const server = await startServer(fakeApp(), { address: { path } })
    expect(server.url).toBe(`unix://${path}`)
    const client = await connectTo(server)
    await client.send(echo('unix'), flush)
    expect(await client.answers(2)).toEqual([{ method: 'echo', value: { message: 'unix' } }, flushed])
    await server.close()
    expect(() => statSync(path)).toThrow(/ENOENT/)
  })

  it('refuses a unix socket path held by a live server or by a file that is not a socket', async () => {
    const dir = tempDir()
    const live = join(dir, 'live.sock')
    await startServer(fakeApp(), { address: { path: live } })
    await expect(startServer(fakeApp(), { address: { path: live } })).rejects.toThrow(/another process listens/)
    const file = join(dir, 'file')
    writeFileSync(file, '')
    await expect(startServer(fakeApp(), { address: { path: file } })).rejects.toThrow(/not a socket/)
  })

  it('closes idempotently, dropping its connections and freeing the port', async () => {
    const server = await startServer(fakeApp())
    const client = await connectTo(server)
    await Promise.all([server.close(), server.close()])
    await server.close()
    await client.closed
    const port = Number(new URL(server.url).port)
    const again = createServer()
    await new Promise<void>((listening, failed) => {
      again.once('error', failed)
      again.listen(port, '127.0.0.1', listening)
    })
    await new Promise((closed) => again.close(closed))
  })
})
