/**
 * A testnet of real `nodectl start` processes (the built binary; skipped when dist/ is missing) whose
 * homes name ports that another program took before the nodes started: node0's JSON-RPC port and node1's
 * p2p port are held by other listeners. Each start fails on EADDRINUSE, is retried with that listener on
 * another port, and the two validators (both needed for +2/3) find each other and commit.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { ephemeralPortRange } from '../helpers/ports.js'
import { TestnetProcesses } from '../helpers/testnet-processes.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/start.js'))
if (!BUILT) console.warn('test/e2e/testnet-ports.test.ts skipped: dist/commands/start.js is missing; run `npm run build` first')

/** Shorter than CometBFT's defaults, as test/e2e/testnet-faults.test.ts. */
const ENV = { NODECTL_CONSENSUS_TIMEOUT_PROPOSE: '1s', NODECTL_CONSENSUS_TIMEOUT_COMMIT: '300ms', NODECTL_LOG_LEVEL: 'info' }

function occupy(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy())
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

describe.skipIf(!BUILT)('testnet ports taken before the nodes start', () => {
  let dir: string | undefined
  let net: TestnetProcesses | undefined
  const squatters: Server[] = []

  afterAll(async () => {
    await net?.stopAll()
    for (const s of squatters) s.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('starts each node again on another port and the two validators commit', async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-ports-'))
    const testnet = await TestnetProcesses.create(dir, 2, ENV)
    net = testnet
    const home = { rpc0: testnet.portOf(0, 'jsonRpc'), p2p1: testnet.portOf(1, 'p2p') }
    const { low, high } = ephemeralPortRange()
    for (const i of [0, 1])
      for (const l of ['jsonRpc', 'webSocket', 'cometRpc', 'p2p'] as const) {
        const port = testnet.portOf(i, l)
        expect(port < low || port > high, `node${i} ${l} port ${port} in the ephemeral range ${low}–${high}`).toBe(true)
      }
    squatters.push(await occupy(home.rpc0), await occupy(home.p2p1))

    await testnet.start(0)
    await testnet.start(1)
    expect(testnet.portOf(0, 'jsonRpc')).not.toBe(home.rpc0)
    expect(testnet.portOf(1, 'p2p')).not.toBe(home.p2p1)
    expect(testnet.nodes[0]!.output.join('\n')).toContain(`port ${home.rpc0} of jsonRpc is taken`)
    expect(testnet.nodes[1]!.output.join('\n')).toContain(`port ${home.p2p1} of p2p is taken`)

    await testnet.watch(1)
    await testnet.waitUntil(async () => (await testnet.height(0)) >= 2 && (await testnet.height(1)) >= 2, 'both nodes at height 2')
    expect(await testnet.rpc<string>(0, 'eth_chainId')).toMatch(/^0x[0-9a-f]+$/)
  }, 120_000)
})
