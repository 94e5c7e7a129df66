/**
 * How the client commands name a node, run through oclif against a node that `nodectl start` runs
 * in-process on port 0 while its home's files name other ports: `--home` alone finds it through
 * `<home>/data/listen.json`; `--rpc-url`/`-r`, `--ws-url`, `--comet-url`, the environment variables
 * and the old flag names work on every command that uses them and are accepted by those that do not;
 * host:port forms work on each; a malformed URL is a usage error (exit 2) naming its flag.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { writeListenRecord } from '../../src/config/listen-record.js'
import { runNode } from '../../src/cli/start-node.js'
import type { CometStatus } from '../../src/cli/comet-types.js'
import type { RpcBlock } from '../../src/cli/eth-types.js'
import QueryBalance from '../../src/commands/query/balance.js'
import QueryBlock from '../../src/commands/query/block.js'
import QueryStatus from '../../src/commands/query/status.js'
import SubscribeEvents from '../../src/commands/subscribe/events.js'
import SubscribeNewHeads from '../../src/commands/subscribe/new-heads.js'
import { initDevHome } from '../../src/config/init-home.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { NodeAddresses } from '../../src/node/node.js'
import { testNodeSettings } from '../../src/node/test-settings.js'
import { jsonOf, runCli } from '../helpers/cli.js'

const [A0] = devAccounts(1)
/** Ports the home's files name, where nothing listens (below 1024, never handed out as port 0). */
const FILE_PORTS = { http: 1, ws: 2, comet: 3 }
const NEW_BLOCK = "tm.event='NewBlock'"

describe('naming the node: --home, flags, environment', () => {
  let home: string
  let addresses: NodeAddresses
  let chainId: string
  let stopNode: () => void
  let stopped: Promise<void>
  const port = (url: string | undefined): string => new URL(url!.replace(/^tcp:/, 'http:')).port
  const recordPath = (): string => join(home, 'data/listen.json')
  const record = () => ({
    pid: process.pid,
    jsonRpcHttp: addresses.jsonRpcHttp,
    jsonRpcWs: addresses.jsonRpcWs,
    cometRpc: addresses.cometRpc!.replace('tcp:', 'http:'),
  })

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'nodectl-endpoints-'))
    const settings = testNodeSettings()
    settings.jsonRpc.address = { host: '127.0.0.1', port: FILE_PORTS.http }
    settings.jsonRpc.wsAddress = { host: '127.0.0.1', port: FILE_PORTS.ws }
    settings.rpc.laddr = { host: '127.0.0.1', port: FILE_PORTS.comet }
    chainId = (await initDevHome(home, { settings })).chainId
    const anyPort = '127.0.0.1:0'
    const flags = {
      home,
      'json-rpc.address': anyPort,
      'json-rpc.ws-address': anyPort,
      'rpc.laddr': `tcp://${anyPort}`,
      'p2p.laddr': `tcp://${anyPort}`,
    }
    const serving = new Promise<NodeAddresses>((resolve, reject) => {
      stopped = runNode(flags, 'test', {
        log: () => {},
        logToStderr: () => {},
        warn: () => {},
        serving: (bound) => {
          resolve(bound)
          return new Promise<void>((r) => (stopNode = r))
        },
      })
      stopped.catch(reject)
    })
    addresses = await serving
  })
  afterEach(() => {
    vi.unstubAllEnvs()
  })
  afterAll(async () => {
    stopNode?.()
    await stopped
    await rm(home, { recursive: true, force: true })
  })

  it('start records where it listens in <home>/data/listen.json, and --home alone finds the node there', async () => {
    expect(JSON.parse(await readFile(recordPath(), 'utf8'))).toEqual(record())
    expect(port(addresses.jsonRpcHttp)).not.toBe(String(FILE_PORTS.http))

    const block = await runCli(QueryBlock, ['latest', '--home', home, '--json'])
    expect(block.error).toBeUndefined()
    expect(jsonOf<RpcBlock>(block).hash).toMatch(/^0x[0-9a-f]{64}$/)
    const status = await runCli(QueryStatus, ['--home', home, '--json'])
    expect(jsonOf<CometStatus>(status).node_info.network).toBe(chainId)
    const heads = await runCli(SubscribeNewHeads, ['--home', home, '--count', '1', '--json'])
    expect(heads.result).toMatchObject({ events: 1, stoppedBy: 'count' })
    const events = await runCli(SubscribeEvents, [NEW_BLOCK, '--home', home, '--count', '1', '--json'])
    expect(events.result).toMatchObject({ events: 1, stoppedBy: 'count' })

    // The home of $NODECTL_HOME is found the same way.
    vi.stubEnv('NODECTL_HOME', home)
    expect(jsonOf<CometStatus>(await runCli(QueryStatus, ['--json'])).node_info.network).toBe(chainId)
  })

  it('a listen.json whose process is gone is ignored: the files of the home are used', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid
    await writeFile(recordPath(), JSON.stringify({ pid: dead, jsonRpcHttp: addresses.jsonRpcHttp }))
    try {
      const run = await runCli(QueryBlock, ['latest', '--home', home])
      expect(run.error?.message).toMatch(new RegExp(`^cannot reach node at http://127\\.0\\.0\\.1:${FILE_PORTS.http}\\b`))
      expect(run.exitCode).toBe(1)
    } finally {
      await writeListenRecord(join(home, 'data'), record())
    }
  })

  it('--rpc-url/-r, --ws-url and --comet-url take a URL, host:port or :port; the old --node, --ws and --rpc still work', async () => {
    const http = port(addresses.jsonRpcHttp)
    const ws = port(addresses.jsonRpcWs)
    const comet = port(addresses.cometRpc)
    const balance = (flags: string[]) => runCli(QueryBalance, [A0!.address, ...flags, '--json'])
    for (const flags of [
      ['--rpc-url', addresses.jsonRpcHttp!],
      ['--rpc-url', `127.0.0.1:${http}`],
      ['-r', `:${http}`],
      [`--rpc-url=localhost:${http}`],
      ['--node', addresses.jsonRpcHttp!],
    ]) {
      const run = await balance(flags)
      expect([flags, run.error?.message]).toEqual([flags, undefined])
      expect(jsonOf<{ wei: string }>(run).wei).not.toBe('0')
    }
    for (const flags of [
      ['--ws-url', addresses.jsonRpcWs!],
      ['--ws-url', `:${ws}`],
      ['--ws', `127.0.0.1:${ws}`],
    ]) {
      const run = await runCli(SubscribeNewHeads, [...flags, '--count', '1', '--json'])
      expect([flags, run.error?.message, run.result?.events]).toEqual([flags, undefined, 1])
    }
    for (const flags of [
      ['--comet-url', addresses.cometRpc!],
      ['--comet-url', `http://127.0.0.1:${comet}`],
      ['--comet-url', `:${comet}`],
      ['--comet-url', `ws://127.0.0.1:${comet}/websocket`],
      ['--rpc', `127.0.0.1:${comet}`],
    ]) {
      const run = await runCli(QueryStatus, [...flags, '--json'])
      expect([flags, run.error?.message]).toEqual([flags, undefined])
      expect([flags, jsonOf<CometStatus>(run).node_info?.network]).toEqual([flags, chainId])
    }
    const events = await runCli(SubscribeEvents, [NEW_BLOCK, '--comet-url', `:${comet}`, '--count', '1', '--json'])
    expect(events.result).toMatchObject({ events: 1 })
  })

  it('a command accepts the connection flags it does not use and ignores them: -r on a consensus command', async () => {
    const elsewhere = ['--home', join(home, 'missing')]
    const status = await runCli(QueryStatus, [
      '-r',
      'http://127.0.0.1:1',
      '--ws-url',
      ':1',
      '--comet-url',
      addresses.cometRpc!,
      ...elsewhere,
    ])
    expect(status.error).toBeUndefined()
    const balance = await runCli(QueryBalance, [A0!.address, '-r', addresses.jsonRpcHttp!, '--comet-url', ':1', '--ws-url', ':1', '--json'])
    expect(balance.error).toBeUndefined()
    const heads = await runCli(SubscribeNewHeads, ['--ws-url', addresses.jsonRpcWs!, '-r', ':1', '--comet-url', ':1', '--count', '1'])
    expect(heads.error).toBeUndefined()
    // The help says so.
    expect(QueryStatus.baseFlags['rpc-url'].summary).toBe(
      'Not used by the consensus commands, which talk to --comet-url; accepted so the same flags work on every command.',
    )
  })

  it('the environment names the node: NODECTL_RPC_URL over ETH_RPC_URL, NODECTL_WS_URL, NODECTL_COMET_URL; a flag wins', async () => {
    vi.stubEnv('NODECTL_HOME', join(home, 'missing'))
    vi.stubEnv('ETH_RPC_URL', addresses.jsonRpcHttp!)
    expect((await runCli(QueryBalance, [A0!.address, '--json'])).error).toBeUndefined()
    vi.stubEnv('NODECTL_RPC_URL', '127.0.0.1:1')
    expect((await runCli(QueryBalance, [A0!.address])).error?.message).toMatch(/^cannot reach node at http:\/\/127\.0\.0\.1:1\b/)
    expect((await runCli(QueryBalance, [A0!.address, '-r', addresses.jsonRpcHttp!, '--json'])).error).toBeUndefined()

    vi.stubEnv('NODECTL_WS_URL', addresses.jsonRpcWs!)
    expect((await runCli(SubscribeNewHeads, ['--count', '1'])).result).toMatchObject({ events: 1 })
    vi.stubEnv('NODECTL_COMET_URL', `:${port(addresses.cometRpc)}`)
    expect(jsonOf<CometStatus>(await runCli(QueryStatus, ['--json'])).node_info.network).toBe(chainId)
  })

  it('a malformed URL is a usage error, exit 2, naming the flag or variable', async () => {
    const cases: [typeof QueryBalance | typeof QueryStatus | typeof SubscribeNewHeads, string[], string, string][] = [
      [QueryBalance, [A0!.address, '--rpc-url', 'localhost:http'], 'localhost:http', '--rpc-url'],
      [QueryBalance, [A0!.address, '--node', 'h:99999'], 'h:99999', '--rpc-url'],
      [SubscribeNewHeads, ['--ws-url', 'ftp://h:1'], 'ftp://h:1', '--ws-url'],
      [QueryStatus, ['--comet-url', 'tcp://h'], 'tcp://h', '--comet-url'],
    ]
    for (const [command, argv, text, flag] of cases) {
      const run = await runCli(command, argv)
      expect([argv, run.error?.message.startsWith(`malformed URL "${text}" for ${flag}: `), run.exitCode]).toEqual([argv, true, 2])
    }
    vi.stubEnv('NODECTL_COMET_URL', 'h:port')
    const run = await runCli(QueryStatus, [])
    expect([run.error?.message.startsWith('malformed URL "h:port" for NODECTL_COMET_URL: '), run.exitCode]).toEqual([true, 2])
  })

  it('a malformed value of an endpoint the command does not use is ignored, as its flag is', async () => {
    vi.stubEnv('ETH_RPC_URL', 'ftp://elsewhere:1')
    const status = await runCli(QueryStatus, ['--comet-url', addresses.cometRpc!, '-r', 'localhost:http', '--json'])
    expect(status.error).toBeUndefined()
    const heads = await runCli(SubscribeNewHeads, ['--ws-url', addresses.jsonRpcWs!, '--comet-url', 'tcp://h', '--count', '1'])
    expect(heads.error).toBeUndefined()
    const balance = await runCli(QueryBalance, [A0!.address])
    expect([balance.error?.message.startsWith('malformed URL "ftp://elsewhere:1" for ETH_RPC_URL: '), balance.exitCode]).toEqual([true, 2])
  })

  it('listen.json is removed once the node stops', async () => {
    expect(existsSync(recordPath())).toBe(true)
    stopNode()
    await stopped
    expect(existsSync(recordPath())).toBe(false)
  })
})
