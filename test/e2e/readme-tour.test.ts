/**
 * The README's command tour, as a user runs it: the "terminal 1" block starts a dev node with the real
 * binary (its listeners on port 0 through NODECTL_* variables, which the tour's lines do not set), then
 * the "terminal 2" block runs in bash line by line, `nodectl` being bin/run.js. Each line's output is
 * checked against what it is expected to print; a README line without an expectation here fails, as
 * does a line that fails or prints another shape. Every other `nodectl …` line of the README is checked
 * against the oclif manifest: the command exists, its flags exist, it is not given too many arguments.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { ROOT } from '../helpers/cli.js'

const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const BIN = join(ROOT, 'bin/run.js')
const BUILT = existsSync(join(ROOT, 'dist/commands/start.js'))

/** The `sh` code blocks of the README's "## Commands" section. */
function commandBlocks(): string[][] {
  const section = README.slice(README.indexOf('\n## Commands\n'), README.indexOf('\n## ', README.indexOf('\n## Commands\n') + 1))
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trimEnd().split('\n'))
}

const HASH = /0x[0-9a-f]{64}/
const [DEV0] = devAccounts(1)

/** What each line of the tour prints (stdout), by the line's command without its comment. */
const EXPECTED: [RegExp, (out: string) => void][] = [
  [/^export NODECTL_HOME=/, (out) => expect(out).toBe('')],
  [/^nodectl keys list$/, (out) => expect(out.split('\n')[0]).toMatch(new RegExp(`^dev0\\t${DEV0!.address}\\t/`))],
  [/^nodectl keys add alice /, (out) => expect(out).toMatch(/^0x[0-9a-fA-F]{40}$/)],
  [/^tx=\$\(nodectl tx send /, (out) => expect(out).toBe('')],
  [/^nodectl query receipt \$tx$/, (out) => expect(out).toMatch(/^status\tsuccess \(1\)$/m)],
  [/^nodectl query balance alice$/, (out) => expect(out).toBe('1000000000000000000')],
  [
    /^nodectl trace tx \$tx --tracer callTracer$/,
    (out) => expect(out).toMatch(/^CALL 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 → 0x[0-9a-f]{40} +value 1 ether/m),
  ],
  [/^nodectl block-number$/, (out) => expect(out).toMatch(/^[1-9]\d*$/)],
  [/^nodectl call 0x0{39}4 --data 0xc0ffee$/, (out) => expect(out).toBe('0xc0ffee')],
  [/^nodectl query status$/, (out) => expect(out).toMatch(/^chain id\tnodectl_31337-1$/m)],
  [/^nodectl query tx-search /, (out) => expect(out).toMatch(new RegExp(`^\\d+\\t0\\t[0-9A-F]{64}\\t${HASH.source}\\t0\\t21000$`, 'm'))],
  [
    /^nodectl subscribe new-heads --count 1$/,
    (out) => expect(out).toMatch(new RegExp(`^block \\d+ ${HASH.source} time \\S+ gasUsed \\d+`)),
  ],
  [
    /^id=\$\(nodectl filter new-blocks\) && nodectl filter changes \$id$/,
    (out) => expect(out).toMatch(/^(no changes|0x[0-9a-f]{64}(\n0x[0-9a-f]{64})*)$/),
  ],
]

/** Runs a bash script to its end: its exit status and what it printed. */
function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.once('close', (status) => resolve({ status, stdout, stderr }))
  })
}

/** A line without its trailing comment (two spaces then `#`). */
function withoutComment(line: string): string {
  return line.replace(/\s{2,}#.*$/, '').trim()
}

describe.skipIf(!BUILT)('the README tour', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-readme-'))
  let node: ChildProcess | undefined
  afterAll(() => {
    if (node && node.exitCode === null) node.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('runs every line of the tour with the real binary, each printing what the README says', async () => {
    const [terminal1, terminal2] = commandBlocks()
    const startLine = withoutComment(terminal1![0]!)
    expect(startLine).toMatch(/^nodectl start --dev /)
    const anyPort = '127.0.0.1:0'
    // exec: the node replaces bash, so the SIGINT at the end reaches it.
    node = spawn('bash', ['-c', `nodectl() { exec node "$BIN" "$@"; }; ${startLine}`], {
      cwd: dir,
      env: {
        ...process.env,
        BIN,
        NODECTL_JSON_RPC_ADDRESS: anyPort,
        NODECTL_JSON_RPC_WS_ADDRESS: anyPort,
        NODECTL_RPC_LADDR: `tcp://${anyPort}`,
        NODECTL_P2P_LADDR: `tcp://${anyPort}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    node.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
    await new Promise<void>((resolve, reject) => {
      let out = ''
      node!.stdout!.on('data', (c: Buffer) => {
        out += c.toString()
        if (out.includes('Press Ctrl-C to stop.')) resolve()
      })
      node!.once('exit', (code) => reject(new Error(`the dev node exited with ${code} before serving:\n${stderr}`)))
    })

    const lines = terminal2!.map(withoutComment).filter((l) => l !== '')
    for (const line of lines)
      expect(
        EXPECTED.some(([pattern]) => pattern.test(line)),
        `no expectation for "${line}"`,
      ).toBe(true)
    // One bash: the variables of a line (tx, id) reach the next ones. A marker on stdout and stderr before each line.
    const script = ['set -eo pipefail', 'nodectl() { node "$BIN" "$@"; }']
    for (const [i, line] of lines.entries()) script.push(`echo "@@@ ${i}"; echo "@@@ ${i}" >&2`, line)
    // Not spawnSync: the node's output must keep being read while the tour runs.
    const run = await runBash(script.join('\n'), dir, { ...process.env, BIN })
    const outputs = run.stdout.split(/^@@@ \d+\n/m).slice(1)
    expect(run.status, `the tour stopped at "${lines[outputs.length - 1]}":\n${run.stderr}`).toBe(0)
    expect(outputs).toHaveLength(lines.length)
    lines.forEach((line, i) => {
      const [, check] = EXPECTED.find(([pattern]) => pattern.test(line))!
      try {
        check(outputs[i]!.trimEnd())
      } catch (err) {
        throw new Error(`"${line}" printed:\n${outputs[i]}\n${(err as Error).message}`)
      }
    })

    node.kill('SIGINT')
    expect(await new Promise((resolve) => node!.once('exit', resolve))).toBe(0)
  }, 120_000)
})

/** A command line's words, quotes removed (no escapes or expansions: the README does not use them). */
function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!)
}

interface ManifestCommand {
  flags: Record<string, { name: string; char?: string; type: 'boolean' | 'option'; allowNo?: boolean }>
  args: Record<string, unknown>
  strict?: boolean
}

describe('every nodectl line of the README', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> }
  // Commands of oclif plugins are not in our manifest; they are checked by their own tests.
  const PLUGIN_COMMANDS = ['autocomplete']
  const invocations = [...README.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.split('\n'))
    .map(withoutComment)
    .flatMap((line) => [...line.matchAll(/(?:^|\$\(|&& )nodectl ([^)&]*)/g)].map((m) => m[1]!.trim()))

  it('finds the tour and the other examples', () => {
    expect(invocations.length).toBeGreaterThan(20)
  })

  it('names a command, its flags and no more arguments than it takes', () => {
    for (const invocation of invocations) {
      const tokens = words(invocation)
      let id = ''
      let used = 0
      for (let n = tokens.length; n > 0; n--) {
        const candidate = tokens.slice(0, n).join(':')
        if (manifest.commands[candidate] || PLUGIN_COMMANDS.includes(candidate)) {
          id = candidate
          used = n
          break
        }
      }
      expect(id, `no command in "nodectl ${invocation}"`).not.toBe('')
      if (PLUGIN_COMMANDS.includes(id)) continue
      const command = manifest.commands[id]!
      const flags = Object.values(command.flags)
      let positional = 0
      const rest = tokens.slice(used)
      for (let i = 0; i < rest.length; i++) {
        const token = rest[i]!
        if (!token.startsWith('-') || token === '-') {
          positional++
          continue
        }
        const [name, inline] = token.replace(/^--?/, '').split('=', 2) as [string, string | undefined]
        const flag = token.startsWith('--')
          ? flags.find((f) => f.name === name || (f.allowNo && `no-${f.name}` === name))
          : flags.find((f) => f.char === name)
        expect(flag, `"nodectl ${invocation}": ${id.replaceAll(':', ' ')} has no flag ${token}`).toBeDefined()
        if (flag!.type === 'option' && inline === undefined) i++
      }
      if (command.strict !== false)
        expect(positional, `"nodectl ${invocation}": too many arguments`).toBeLessThanOrEqual(Object.keys(command.args).length)
    }
  })
})
