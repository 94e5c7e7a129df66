/** Command-line values to JSON-RPC parameters, and where the client commands find the node. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { normalizeUrl, resolveEndpoints } from '../../../src/cli/endpoints.js'
import { writeListenRecord } from '../../../src/config/listen-record.js'
import { buildLogFilter, parseBlockNumber, parseBlockSelector, parseSlot, parseTopics } from '../../../src/cli/params.js'
import { decimalOf } from '../../../src/cli/render.js'
import { formatEther } from '../../../src/primitives/ether.js'

const HASH = `0x${'ab'.repeat(32)}`

describe('params', () => {
  it('blocks: tags, decimal, hex, hashes; rejects the rest', () => {
    expect(parseBlockNumber('Latest')).toBe('latest')
    expect(parseBlockNumber('12')).toBe('0xc')
    expect(parseBlockNumber('0x0c')).toBe('0xc')
    expect(parseBlockSelector(HASH)).toEqual({ kind: 'hash', value: HASH })
    expect(parseBlockSelector('0')).toEqual({ kind: 'number', value: '0x0' })
    expect(() => parseBlockNumber('tomorrow')).toThrow(/invalid block "tomorrow"/)
  })

  it('slots and topics', () => {
    expect(parseSlot('10')).toBe('0xa')
    expect(parseTopics(['any', `${HASH},${HASH}`, HASH])).toEqual([null, [HASH, HASH], HASH])
    expect(() => parseTopics(['0x12'])).toThrow(/invalid topic/)
  })

  it('log filters from flags', () => {
    const a = `0x${'11'.repeat(20)}`
    const b = `0x${'22'.repeat(20)}`
    expect(buildLogFilter({})).toEqual({})
    expect(buildLogFilter({ from: '1', to: 'latest', address: [`${a},${b}`], topic: [HASH] })).toEqual({
      fromBlock: '0x1',
      toBlock: 'latest',
      address: [a, b],
      topics: [HASH],
    })
    expect(() => buildLogFilter({ address: ['0x1'] })).toThrow(/invalid address "0x1"/)
  })

  it('renders quantities and ether', () => {
    expect(decimalOf('0x10')).toBe('16')
    expect(formatEther(10n ** 18n * 10_000n)).toBe('10000')
    expect(formatEther(1_500_000_000_000_000_000n)).toBe('1.5')
    expect(formatEther(1n)).toBe('0.000000000000000001')
  })
})

describe('normalizeUrl', () => {
  it('takes host:port, :port, tcp://, http(s):// and ws(s):// for every endpoint, in the scheme it needs', () => {
    expect(normalizeUrl('127.0.0.1:8545', 'http', '--rpc-url')).toBe('http://127.0.0.1:8545')
    expect(normalizeUrl(':8545', 'http', '--rpc-url')).toBe('http://127.0.0.1:8545')
    expect(normalizeUrl('tcp://0.0.0.0:26657', 'http', '--comet-url')).toBe('http://127.0.0.1:26657')
    expect(normalizeUrl('tcp://[::]:26657', 'http', '--comet-url')).toBe('http://[::1]:26657')
    expect(normalizeUrl('https://rpc.example.org/evm/', 'http', '--rpc-url')).toBe('https://rpc.example.org/evm')
    expect(normalizeUrl('http://localhost:8546', 'ws', '--ws-url')).toBe('ws://localhost:8546')
    expect(normalizeUrl('wss://rpc.example.org', 'ws', '--ws-url')).toBe('wss://rpc.example.org')
    expect(normalizeUrl('localhost:8546', 'ws', '--ws-url')).toBe('ws://localhost:8546')
  })

  it.each([
    ['ftp://x:1', /malformed URL "ftp:\/\/x:1" for --rpc-url: unsupported scheme "ftp"/],
    ['tcp://x', /malformed URL "tcp:\/\/x" for --rpc-url: want host:port with a port/],
    ['x:0', /malformed URL "x:0" for --rpc-url: want a non-zero port/],
    ['http://[bad', /malformed URL "http:\/\/\[bad" for --rpc-url/],
  ])('refuses %s naming the flag', (text, message) => {
    expect(() => normalizeUrl(text, 'http', '--rpc-url')).toThrow(message)
  })
})

describe('resolveEndpoints', () => {
  it('flags win; else app.toml of the home (wildcards on loopback); else the defaults', async () => {
    const home = await mkdtemp(join(tmpdir(), 'nodectl-endpoints-'))
    try {
      expect(await resolveEndpoints({ home }, {})).toMatchObject({ http: 'http://127.0.0.1:8545', ws: 'ws://127.0.0.1:8546' })
      await mkdir(join(home, 'config'))
      await writeFile(join(home, 'config/app.toml'), '[json-rpc]\naddress = "127.0.0.1:9545"\nws-address = "0.0.0.0:9546"\n')
      expect(await resolveEndpoints({ home }, {})).toMatchObject({ http: 'http://127.0.0.1:9545', ws: 'ws://127.0.0.1:9546' })
      expect(
        await resolveEndpoints({ home: undefined, 'rpc-url': 'http://x:1', 'ws-url': 'ws://x:2' }, { NODECTL_HOME: home }),
      ).toMatchObject({
        http: 'http://x:1',
        ws: 'ws://x:2',
        home,
      })
      // The environment comes between the flags and the files: NODECTL_RPC_URL before cast's ETH_RPC_URL.
      expect(
        await resolveEndpoints({ home }, { ETH_RPC_URL: 'x:3', NODECTL_WS_URL: ':4', NODECTL_COMET_URL: 'tcp://0.0.0.0:5' }),
      ).toMatchObject({
        http: 'http://x:3',
        ws: 'ws://127.0.0.1:4',
        comet: 'http://127.0.0.1:5',
      })
      expect((await resolveEndpoints({ home }, { ETH_RPC_URL: 'x:3', NODECTL_RPC_URL: 'y:6' })).http).toBe('http://y:6')
      // A running node's record (data/listen.json) wins over the files; a dead one's is ignored.
      await mkdir(join(home, 'data'))
      await writeListenRecord(join(home, 'data'), {
        pid: process.pid,
        jsonRpcHttp: 'http://127.0.0.1:7001',
        cometRpc: 'http://127.0.0.1:7003',
      })
      expect(await resolveEndpoints({ home }, {})).toMatchObject({
        http: 'http://127.0.0.1:7001',
        ws: 'ws://127.0.0.1:9546',
        comet: 'http://127.0.0.1:7003',
      })
      await writeListenRecord(join(home, 'data'), { pid: 2 ** 22 + 1, jsonRpcHttp: 'http://127.0.0.1:7001' })
      expect((await resolveEndpoints({ home }, {})).http).toBe('http://127.0.0.1:9545')
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })
})
