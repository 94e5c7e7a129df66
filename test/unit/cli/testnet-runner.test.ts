/**
 * The supervisor of `nodectl testnet start` over a fake node: a tiny script run as
 * `<node> fake-node.mjs start --home <behaviour>` that prints its arguments and pid and stops on SIGINT
 * with status 0 ("split" also writes a line in two chunks, a stderr line in between; "stubborn" ignores
 * SIGINT; "crash-N" exits with N at once). Tests wait on printed lines and on `exited`, never on a clock.
 * Also the folder scan that finds the homes init-files wrote.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findTestnetHomes, selectTestnetHomes } from '../../../src/cli/testnet-homes.js'
import { shouldColor } from '../../../src/cli/color.js'
import { TestnetRunner, type TestnetRunnerNode } from '../../../src/cli/testnet-runner.js'
import { initTestnetFiles } from '../../../src/config/testnet.js'

const FAKE_NODE = `
const home = process.argv[process.argv.indexOf('--home') + 1]
const crash = /^crash-(\\d+)$/.exec(home)
console.log('args ' + process.argv.slice(2).join(' '))
if (process.argv.includes('--json')) console.log(JSON.stringify({ event: 'serving', jsonRpc: { http: 'http://127.0.0.1:1' } }))
if (crash) process.exit(Number(crash[1]))
if (home === 'stubborn') process.on('SIGINT', () => console.log('ignoring SIGINT'))
else process.on('SIGINT', () => { console.log('stopping'); process.exit(0) })
setInterval(() => {}, 1 << 30)
if (home === 'split') {
  // One write holds the pid line and the first half of a line, so the runner has read that half once the
  // test sees the pid; the rest, after a whole stderr line, waits for the SIGUSR2 the test then sends.
  process.on('SIGUSR2', () =>
    process.stderr.write('on stderr\\n', () => process.stdout.write(' second half\\n', () => console.log('ready'))),
  )
  process.stdout.write('pid ' + process.pid + '\\nfirst half')
} else {
  console.log('pid ' + process.pid)
}
`

let dir: string
let fakeNode: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodectl-testnet-runner-'))
  fakeNode = join(dir, 'fake-node.mjs')
  await writeFile(fakeNode, FAKE_NODE)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A runner over the fake node whose printed lines are kept; `line()` waits for one. */
function startRunner(nodes: TestnetRunnerNode[], opts: { color?: boolean; gracePeriodMs?: number; json?: boolean } = {}) {
  const lines: string[] = []
  const waiters = new Set<() => void>()
  const runner = new TestnetRunner({
    nodes,
    binPath: fakeNode,
    color: opts.color ?? false,
    gracePeriodMs: opts.gracePeriodMs,
    json: opts.json,
    write: (line) => {
      lines.push(line)
      for (const waiter of [...waiters]) waiter()
    },
  })
  const line = (text: string): Promise<string> =>
    new Promise((resolve) => {
      const check = (): void => {
        const hit = lines.find((l) => l.includes(text))
        if (hit === undefined) return
        waiters.delete(check)
        resolve(hit)
      }
      waiters.add(check)
      check()
    })
  /** The pid the fake node behind `prefix` printed. */
  const pidOf = async (prefix: string): Promise<number> => Number((await line(`${prefix} pid `)).split(' pid ')[1])
  runner.start()
  return { runner, lines, line, pidOf }
}

/** True while a process with this pid exists. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('TestnetRunner', () => {
  it("with json, writes one object per line: the node's own banner object, its other lines, its exit", async () => {
    const { runner, lines, line } = startRunner([{ moniker: 'node0', home: 'plain' }], { json: true })
    await line('"pid ')
    const outcome = await runner.stop()
    expect(outcome.exitCode).toBe(0)
    const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(objects[0]).toEqual({ moniker: 'node0', event: 'output', stream: 'stdout', line: 'args start --home plain --json' })
    expect(objects[1]).toEqual({ moniker: 'node0', event: 'serving', jsonRpc: { http: 'http://127.0.0.1:1' } })
    expect(objects).toContainEqual({ moniker: 'node0', event: 'output', stream: 'stdout', line: 'stopping' })
    expect(objects.at(-1)).toEqual({ moniker: 'node0', event: 'exited', code: 0, signal: null })
  })

  it('prefixes whole lines of stdout and stderr, and stop() ends every node with SIGINT (exit 0)', async () => {
    const { runner, lines, line, pidOf } = startRunner([
      { moniker: 'node0', home: 'split' },
      { moniker: 'node10', home: 'split' },
    ])
    const pids = await Promise.all([pidOf('node0  |'), pidOf('node10 |')])
    for (const pid of pids) process.kill(pid, 'SIGUSR2')
    await Promise.all([line('node0  | ready'), line('node10 | ready')])

    const outcome = await runner.stop()
    expect(outcome.exitCode).toBe(0)
    expect(outcome.nodes).toEqual([
      { moniker: 'node0', code: 0, signal: null, onItsOwn: false, killed: false },
      { moniker: 'node10', code: 0, signal: null, onItsOwn: false, killed: false },
    ])
    for (const pid of pids) expect(isAlive(pid)).toBe(false)

    for (const [prefix, home] of [
      ['node0  |', 'split'],
      ['node10 |', 'split'],
    ]) {
      const own = lines.filter((l) => l.startsWith(prefix))
      expect(own).toContain(`${prefix} args start --home ${home}`)
      expect(own).toContain(`${prefix} first half second half`)
      expect(own).toContain(`${prefix} on stderr`)
      expect(own).toContain(`${prefix} stopping`)
      expect(own.at(-1)).toBe(`${prefix} ${prefix.split(' ')[0]} exited with code 0`)
    }
    // Every line carries a prefix, and no half line was printed alone.
    expect(lines.every((l) => /^node(0 |10) \| /.test(l))).toBe(true)
    expect(lines.filter((l) => l.includes('half'))).toHaveLength(2)
  })

  it('sends SIGKILL to a node still running after the grace period, says so, and exits 1', async () => {
    const { runner, lines, pidOf } = startRunner(
      [
        { moniker: 'node0', home: 'ok' },
        { moniker: 'node1', home: 'stubborn' },
      ],
      { gracePeriodMs: 200 },
    )
    // The pid comes after the SIGINT handler is in place.
    const [, stubborn] = await Promise.all([pidOf('node0 |'), pidOf('node1 |')])

    const outcome = await runner.stop()
    expect(outcome.exitCode).toBe(1)
    expect(outcome.nodes).toEqual([
      { moniker: 'node0', code: 0, signal: null, onItsOwn: false, killed: false },
      { moniker: 'node1', code: null, signal: 'SIGKILL', onItsOwn: false, killed: true },
    ])
    expect(lines).toContain('node1 | ignoring SIGINT')
    expect(lines).toContain('node1 | node1 did not stop within 0.2 s: sending SIGKILL')
    expect(lines).toContain('node1 | node1 exited with signal SIGKILL')
    expect(isAlive(stubborn)).toBe(false)
  })

  it('kill() ends every node at once', async () => {
    const { runner, lines, line, pidOf } = startRunner([{ moniker: 'node0', home: 'stubborn' }])
    await pidOf('node0 |')
    void runner.stop()
    await line('node0 | ignoring SIGINT')
    const outcome = await runner.kill()
    expect(outcome.nodes[0]).toMatchObject({ signal: 'SIGKILL', killed: true })
    expect(outcome.exitCode).toBe(1)
    expect(lines).toContain('node0 | node0 killed at once: sending SIGKILL')
  })

  it('reports a node that exits on its own and keeps the others running; stop() then exits 1', async () => {
    const { runner, line, pidOf } = startRunner([
      { moniker: 'node0', home: 'ok' },
      { moniker: 'node1', home: 'crash-3' },
    ])
    await line('node1 | node1 exited with code 3')
    const survivor = await pidOf('node0 |')
    expect(isAlive(survivor)).toBe(true)

    const outcome = await runner.stop()
    expect(outcome.exitCode).toBe(1)
    expect(outcome.nodes).toEqual([
      { moniker: 'node0', code: 0, signal: null, onItsOwn: false, killed: false },
      { moniker: 'node1', code: 3, signal: null, onItsOwn: true, killed: false },
    ])
    expect(isAlive(survivor)).toBe(false)
  })

  it('resolves exited with 1 once every node has exited on its own, even with status 0', async () => {
    const { runner } = startRunner([
      { moniker: 'node0', home: 'crash-0' },
      { moniker: 'node1', home: 'crash-1' },
    ])
    const outcome = await runner.exited
    expect(outcome.exitCode).toBe(1)
    expect(outcome.nodes.map((n) => [n.code, n.onItsOwn])).toEqual([
      [0, true],
      [1, true],
    ])
  })

  it('colours each prefix from a fixed palette when asked', async () => {
    const { runner, lines } = startRunner(
      [
        { moniker: 'node0', home: 'crash-0' },
        { moniker: 'node1', home: 'crash-0' },
      ],
      { color: true },
    )
    await runner.exited
    expect(lines).toContain('\x1b[36mnode0 |\x1b[0m node0 exited with code 0')
    expect(lines).toContain('\x1b[33mnode1 |\x1b[0m node1 exited with code 0')
  })

  it('refuses an empty list of nodes', () => {
    expect(() => new TestnetRunner({ nodes: [], binPath: fakeNode, write: () => {}, color: false })).toThrow(/at least one node/)
  })
})

describe('shouldColor', () => {
  it('colours a terminal unless NO_COLOR is set', () => {
    expect(shouldColor({ isTTY: true }, {})).toBe(true)
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true)
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false)
    expect(shouldColor({ isTTY: false }, {})).toBe(false)
    expect(shouldColor({}, {})).toBe(false)
  })
})

describe('findTestnetHomes', () => {
  it('finds the node<i> folders holding config/config.toml, sorted by i, with their JSON-RPC URL', async () => {
    const out = join(dir, 'net')
    await initTestnetFiles({ outputDir: out, validators: 3, startingPort: 40_000 })
    // Not homes: another folder, and a node folder without config.toml.
    await mkdir(join(out, 'notes'))
    await mkdir(join(out, 'node7'))
    // A home whose files do not load keeps its folder name and has no URL.
    await mkdir(join(out, 'node10/config'), { recursive: true })
    await writeFile(join(out, 'node10/config/config.toml'), 'not = [toml')

    const homes = await findTestnetHomes(out)
    expect(homes).toEqual([
      { index: 0, moniker: 'node0', home: join(out, 'node0'), jsonRpc: 'http://127.0.0.1:40000' },
      { index: 1, moniker: 'node1', home: join(out, 'node1'), jsonRpc: 'http://127.0.0.1:40010' },
      { index: 2, moniker: 'node2', home: join(out, 'node2'), jsonRpc: 'http://127.0.0.1:40020' },
      { index: 10, moniker: 'node10', home: join(out, 'node10'), jsonRpc: undefined },
    ])
    expect(selectTestnetHomes(homes, '10, 0').map((h) => h.moniker)).toEqual(['node0', 'node10'])
    expect(() => selectTestnetHomes(homes, '0,5')).toThrow('--nodes: no home node5 (found node0, node1, node2, node10)')
    expect(() => selectTestnetHomes(homes, 'a')).toThrow('--nodes: want node indexes such as 0,2, got "a"')
  })

  it('finds nothing in a missing or empty folder', async () => {
    expect(await findTestnetHomes(join(dir, 'missing'))).toEqual([])
    const empty = join(dir, 'empty')
    await mkdir(empty)
    expect(await findTestnetHomes(empty)).toEqual([])
  })
})
