#!/usr/bin/env node
/**
 * Issue 27 #6, measured by hand (not in CI: it takes a minute and gigabytes before the fix): spawns
 * `node bin/run.js start --dev` (the built dist/), sends one debug_traceCall of the struct logger on an
 * endless loop (init code JUMPDEST PUSH1 0 JUMP, 12 gas per round, run until `--gas` is spent; the
 * default 25,000,000 is the node's gas cap), keeps a value transfer going every 250 ms, and reports:
 * the answer's size and error, the node's peak RSS (VmHWM of /proc/<pid>/status) and RSS after the
 * answer, the longest stretch without a committed block while the trace ran, and RSS `--idle` seconds
 * after the answer. The answer is counted as it arrives, never held.
 *
 *   node scripts/measure-trace-memory.mjs [--gas 25000000] [--timeout 25s] [--idle 60] [--port 28545]
 *                                         [--repeat 1] [--config '{"disableStack":true}'] [-- <start flags>]
 *
 * `--repeat N` sends the trace N times in a row (sizes and errors are the last one's; the block gap is
 * the longest over all of them).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
/** JUMPDEST PUSH1 0 JUMP: loops until the gas is gone. */
const ENDLESS_LOOP_INIT_CODE = '0x5b600056'
/** Account 0 of the dev mnemonic (funded and unlocked on `--dev`). */
const DEV_ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const DEV_ACCOUNT_1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`)
  return at > 0 ? process.argv[at + 1] : fallback
}
const gas = BigInt(option('gas', '25000000'))
const timeout = option('timeout', '25s')
const idleS = Number(option('idle', '60'))
const port = Number(option('port', '28545'))
const repeat = Number(option('repeat', '1'))
const extraConfig = JSON.parse(option('config', '{}'))
const dashes = process.argv.indexOf('--')
const extraFlags = dashes > 0 ? process.argv.slice(dashes + 1) : []

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** One JSON-RPC call; the answer is counted chunk by chunk and parsed only when `parse` (small answers). */
function call(method, params, parse = true) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } },
      (res) => {
        let bytes = 0
        const head = []
        let headBytes = 0
        res.on('data', (chunk) => {
          bytes += chunk.length
          if (parse || headBytes < 400) {
            head.push(chunk)
            headBytes += chunk.length
          }
        })
        res.on('end', () => {
          const text = Buffer.concat(head).toString('utf8')
          resolve({ bytes, json: parse ? JSON.parse(text) : undefined, head: text.slice(0, 400) })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0)
  return { rssMb: Math.round(kb('VmRSS') / 1024), hwmMb: Math.round(kb('VmHWM') / 1024) }
}

const home = mkdtempSync(join(tmpdir(), 'nodectl-trace-mem-'))
const child = spawn(
  process.execPath,
  [
    join(ROOT, 'bin/run.js'),
    'start',
    '--dev',
    '--home',
    home,
    '--json-rpc.address',
    `127.0.0.1:${port}`,
    '--json-rpc.ws-address',
    `127.0.0.1:${port + 1}`,
    '--rpc.laddr',
    `tcp://127.0.0.1:${port + 2}`,
    '--p2p.laddr',
    `tcp://127.0.0.1:${port + 3}`,
    '--log_level',
    'warn',
    ...extraFlags,
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
)
try {
  for (let i = 0; ; i++) {
    try {
      await call('eth_chainId', [])
      break
    } catch (err) {
      if (i > 600) throw err
      await sleep(100)
    }
  }
  const before = status(child.pid)

  // Heights as they are committed (polled), and a transfer every 250 ms so the dev chain has work.
  let tracing = true
  const heights = []
  const poller = (async () => {
    let last = -1
    while (tracing) {
      try {
        const h = Number((await call('eth_blockNumber', [])).json.result)
        if (h !== last) heights.push({ h, at: performance.now() })
        last = h
      } catch {}
      await sleep(50)
    }
  })()
  const sender = (async () => {
    while (tracing) {
      call('eth_sendTransaction', [{ from: DEV_ACCOUNT, to: DEV_ACCOUNT_1, value: '0x1' }]).catch(() => {})
      await sleep(250)
    }
  })()
  let peak = before.hwmMb
  const sampler = setInterval(() => {
    peak = Math.max(peak, status(child.pid).hwmMb)
  }, 100)

  const t0 = performance.now()
  const config = { timeout, ...extraConfig }
  let answer
  for (let i = 0; i < repeat; i++) {
    answer = await call(
      'debug_traceCall',
      [{ from: DEV_ACCOUNT, data: ENDLESS_LOOP_INIT_CODE, gas: `0x${gas.toString(16)}` }, 'latest', config],
      false,
    )
  }
  const traceMs = (performance.now() - t0) / repeat
  const t1 = performance.now()
  tracing = false
  await Promise.all([poller, sender])
  const afterAnswer = status(child.pid)
  const during = heights.filter((x) => x.at >= t0 - 1000 && x.at <= t1)
  let longestGapMs = 0
  for (let i = 1; i < during.length; i++) longestGapMs = Math.max(longestGapMs, during[i].at - during[i - 1].at)
  if (during.length > 0) longestGapMs = Math.max(longestGapMs, t1 - during.at(-1).at)
  await sleep(idleS * 1000)
  clearInterval(sampler)
  const idle = status(child.pid)
  const error = /"error":(\{[^}]*\})/.exec(answer.head)?.[1]
  console.log(
    JSON.stringify(
      {
        gas: Number(gas),
        config,
        extraFlags,
        repeat,
        answerBytes: answer.bytes,
        error: error ? JSON.parse(error) : undefined,
        msPerTrace: Math.round(traceMs),
        blocksCommittedDuringTrace: Math.max(0, during.length - 1),
        longestMsWithoutBlock: Math.round(longestGapMs),
        rssBeforeMb: before.rssMb,
        peakRssMb: Math.max(peak, idle.hwmMb),
        rssAfterAnswerMb: afterAnswer.rssMb,
        [`rssAfter${idleS}sIdleMb`]: idle.rssMb,
      },
      null,
      2,
    ),
  )
} finally {
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
  rmSync(home, { recursive: true, force: true })
}
