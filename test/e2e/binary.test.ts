/**
 * The real binary, as a user runs it: `bin/run.js start --dev` started by its `#!` line, as the
 * `nodectl` command is, in a child process answers JSON-RPC, stops on SIGINT with status 0 and deletes
 * its temporary home. Runs the built `dist/`
 * (`npm ci` builds it through `prepare`), where `start` runs from the start bundle with its code cache
 * (src/cli/bundle-loader.ts); skipped when it has not been built.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Interface } from 'ethers'
import { afterAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { warmUp } from '../../src/start-bundle.js'
import { ROOT } from '../helpers/cli.js'
import { rpc, startTestNode, waitFor } from '../helpers/dev-node.js'
import { compileContracts } from '../helpers/solidity.js'
import { OPCODE_PROBE_OPERANDS, opcodeProbeCode, words } from '../helpers/opcode-probe.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/start.js')) && existsSync(join(ROOT, 'dist/bundle/start.cjs'))
if (!BUILT) console.warn('test/e2e/binary.test.ts skipped: dist/ or dist/bundle/ is missing; run `npm run build` first')

/** Resolves with the whole stdout once `done(stdout)` holds; rejects if the process exits first. */
function readStdoutUntil(child: ChildProcess, done: (text: string) => boolean, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8')
      if (done(text)) {
        child.stdout!.off('data', onData)
        child.off('exit', onExit)
        resolve(text)
      }
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      reject(new Error(`node exited (code ${code}, signal ${signal}) before its banner; stdout:\n${text}\nstderr:\n${stderr()}`))
    child.stdout!.on('data', onData)
    child.once('exit', onExit)
  })
}

/** The value of a banner row (`Label:   value`). */
function bannerRow(banner: string, label: string): string {
  const m = new RegExp(`^${label}:\\s+(.*)$`, 'm').exec(banner)
  if (!m) throw new Error(`no "${label}" row in the banner:\n${banner}`)
  return m[1]!
}

const { Token } = compileContracts('Token.sol')
const token = new Interface(Token!.abi as never)
const HOLDER = `0x${'ab'.repeat(20)}`

/** A transaction from `from`, mined; its receipt without what depends on the block. */
async function mined(url: string, tx: Record<string, string>) {
  const hash = (await rpc<string>(url, 'eth_sendTransaction', [{ gas: '0x200000', ...tx }])).result!
  const receipt = await waitFor(async () => (await rpc<Record<string, unknown> | null>(url, 'eth_getTransactionReceipt', [hash])).result)
  const logs = (receipt.logs as Record<string, unknown>[]).map(({ address, topics, data }) => ({ address, topics, data }))
  return { status: receipt.status, gasUsed: receipt.gasUsed, contractAddress: receipt.contractAddress, logs }
}

/** Calls of the opcode probe at `to` across operands and gas limits: each answer, result or error. */
async function opcodeCalls(url: string, to: string, gasLimits: (number | undefined)[]) {
  const answers: unknown[] = []
  for (const data of OPCODE_PROBE_OPERANDS) {
    for (const gas of gasLimits) {
      const call = { to, data, ...(gas === undefined ? {} : { gas: `0x${gas.toString(16)}` }) }
      const { result, error } = await rpc(url, 'eth_call', [call, 'latest'])
      answers.push(result ?? error)
    }
  }
  return answers
}

/**
 * Deploys the test ERC-20 from `from`, transfers, calls `balanceOf`, makes a call that reverts with a
 * reason and estimates a transfer: the answers that must not depend on how the node was built. Then
 * the same on the call worker (its own bundle in the binary), once `startWorker` has it running
 * (given a function that makes a burst of calls), with calls and an estimate it answers.
 */
async function executeProbe(url: string, from: string, startWorker: (burst: () => Promise<unknown>) => Promise<void>) {
  const deploy = await mined(url, { from, data: Token!.bytecode + token.encodeDeploy([1_000_000n]).slice(2) })
  const to = deploy.contractAddress as string
  const transfer = (value: bigint) => token.encodeFunctionData('transfer', [HOLDER, value])
  const sent = await mined(url, { from, to, data: transfer(250n) })
  const balanceOf = (who: string) => rpc(url, 'eth_call', [{ to, data: token.encodeFunctionData('balanceOf', [who]) }, 'latest'])
  const mainThread = {
    deploy,
    sent,
    balances: [(await balanceOf(from)).result, (await balanceOf(HOLDER)).result],
    reverted: (await rpc(url, 'eth_call', [{ from: HOLDER, to, data: transfer(251n) }, 'latest'])).error,
    estimate: (await rpc(url, 'eth_estimateGas', [{ from, to, data: transfer(1n) }])).result,
  }
  const probe = (await mined(url, { from, data: opcodeProbeCode() })).contractAddress as string
  const probeTx = words(4096n, 100n, 2n ** 256n - 1n, 0n)
  const opcodes = {
    mined: await mined(url, { from, to: probe, data: probeTx }),
    estimate: (await rpc(url, 'eth_estimateGas', [{ from, to: probe, data: probeTx }])).result,
    calls: await opcodeCalls(url, probe, [undefined, 30_000, 60_000]),
  }
  const burst = (first: number, length: number) =>
    Promise.all(Array.from({ length }, (_, i) => balanceOf(`0x${(first + i).toString(16).padStart(40, '0')}`)))
  let bursts = 0
  await startWorker(() => burst(1 + 60 * bursts++, 60))
  const worker = {
    balances: [...(await burst(1_000_000, 40)), await balanceOf(from), await balanceOf(HOLDER)].map((r) => r.result),
    reverted: (await rpc(url, 'eth_call', [{ from: HOLDER, to, data: transfer(252n) }, 'latest'])).error,
    estimate: (await rpc(url, 'eth_estimateGas', [{ from, to, data: transfer(2n) }])).result,
    opcodes: await opcodeCalls(url, probe, [undefined, 40_000]),
  }
  return { mainThread, opcodes, worker }
}

async function inProcessProbe() {
  const node = await startTestNode()
  try {
    return await executeProbe(node.url, devAccounts()[0]!.address, async () => {
      expect(await node.node.components.app.callWorkers!.whenReady()).toBe(true)
    })
  } finally {
    await node.destroy()
  }
}

describe.skipIf(!BUILT)('nodectl start --dev (the binary)', () => {
  let child: ChildProcess | undefined

  afterAll(() => {
    // Only reached with a live child when an assertion failed before SIGINT.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })

  it('answers JSON-RPC, stops on SIGINT with status 0 and deletes its temporary home', async () => {
    // Port 0 everywhere: the OS picks free ports and the banner shows the bound ones.
    // Through the `#!` line, which starts Node.js with glibc's malloc settings (bin/run.js).
    child = spawn(
      join(ROOT, 'bin/run.js'),
      [
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
        '--log_level',
        'debug',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child!.once('exit', (code, signal) => resolve({ code, signal })),
    )

    const banner = await readStdoutUntil(
      child,
      (t) => t.includes('Press Ctrl-C to stop.'),
      () => stderr,
    )
    const homeRow = bannerRow(banner, 'Home')
    expect(homeRow).toMatch(/ \(temporary, deleted on exit\)$/)
    const home = homeRow.replace(/ \(temporary, deleted on exit\)$/, '')
    expect(existsSync(home)).toBe(true)
    const url = /^(http:\/\/127\.0\.0\.1:\d+) /.exec(bannerRow(banner, 'EVM JSON-RPC'))?.[1]
    expect(url, banner).toBeDefined()
    expect(url).not.toMatch(/:0$/)

    expect((await rpc(url!, 'eth_chainId')).result).toBe('0x7a69')
    if (process.platform === 'linux') {
      const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0')
      expect(environ).toEqual(
        expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_TRIM_THRESHOLD_=131072', 'MALLOC_MMAP_THRESHOLD_=131072']),
      )
    }
    const accounts = (await rpc(url!, 'eth_accounts')).result as string[]
    expect(accounts.map((a) => a.toLowerCase())).toEqual(devAccounts().map((a) => a.address.toLowerCase()))

    // The bundle (esbuild's output of the patched packages, patches/) executes as the in-process node
    // the suites run: a contract's creation, transactions, calls, a revert and an estimate answer the
    // same, on the main thread and on the call worker (its own bundle).
    // Bursts until the worker started (more than 100 calls within a second) and logged that it is ready.
    const startWorker = async (burst: () => Promise<unknown>) => {
      await waitFor(
        async () => {
          await burst()
          return stderr.includes('call worker ready')
        },
        20_000,
        'the call worker',
      )
    }
    expect(await executeProbe(url!, accounts[0]!, startWorker)).toEqual(await inProcessProbe())

    // A filter id captured by the shell is the id alone (stdout is a pipe there), and works as an argument.
    const shell = spawnSync(
      'sh',
      ['-c', 'id=$(node "$BIN" filter new-blocks --node "$URL") && echo "id=$id" && node "$BIN" filter changes "$id" --node "$URL" --json'],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BIN: join(ROOT, 'bin/run.js'), URL: url! } },
    )
    expect(shell.status, shell.stderr).toBe(0)
    const [idLine, ...changes] = shell.stdout.trimEnd().split('\n')
    expect(idLine).toMatch(/^id=0x[0-9a-f]+$/)
    expect(Array.isArray(JSON.parse(changes.join('\n')))).toBe(true)

    // Started on port 0, the node is found from its home alone (data/listen.json), for every endpoint;
    // and `-r host:port` (cast's flag, no scheme) names it too.
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), ...args], { cwd: ROOT, encoding: 'utf8' })
    const chainId = cli('chain-id', '--home', home)
    expect(chainId.stdout.trim(), chainId.stderr).toBe('31337')
    const status = cli('query', 'status', '--home', home, '--json')
    expect(JSON.parse(status.stdout).node_info.network, status.stderr).toBe('nodectl_31337-1')
    expect(cli('block-number', '-r', url!.replace('http://', '')).status).toBe(0)
    const malformed = cli('block-number', '--rpc-url', 'ftp://x:1')
    expect(malformed.status).toBe(2)
    expect(malformed.stderr).toContain('malformed URL "ftp://x:1" for --rpc-url')

    // A second node on the same home is refused, naming the one that serves it.
    const second = cli('start', '--home', home)
    expect(second.status).toBe(1)
    expect(second.stderr).toContain(`${home} is in use by another nodectl (pid ${child.pid}, serving ${url}`)

    child.kill('SIGINT')
    const { code, signal } = await exited
    expect({ code, signal }, `stderr:\n${stderr}`).toEqual({ code: 0, signal: null })
    expect(stderr).toContain('SIGINT received, stopping')
    expect(existsSync(home)).toBe(false)
  }, 60_000)

  it('start --json prints the banner as one JSON object a script can read, and logs stay on stderr', async () => {
    const anyPort = '127.0.0.1:0'
    const json = spawn(
      process.execPath,
      [join(ROOT, 'bin/run.js'), 'start', '--dev', '--json', '--json-rpc.address', anyPort, '--json-rpc.ws-address', anyPort],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODECTL_RPC_LADDR: `tcp://${anyPort}`, NODECTL_P2P_LADDR: `tcp://${anyPort}` },
      },
    )
    let stderr = ''
    json.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const exited = new Promise<number | null>((resolve) => json.once('exit', (code) => resolve(code)))
    try {
      const line = (
        await readStdoutUntil(
          json,
          (text) => text.includes('\n'),
          () => stderr,
        )
      ).split('\n')[0]!
      const banner = JSON.parse(line) as {
        event: string
        dev: boolean
        evmChainId: number
        temporaryHome: boolean
        jsonRpc: { http: string; ws: string }
        cometRpc: { http: string; websocket: string }
        accounts: { address: string; privateKey: string; balance: string }[]
      }
      expect(banner).toMatchObject({ event: 'serving', engine: 'nodectl', dev: true, evmChainId: 31337, temporaryHome: true })
      expect(banner.accounts.map((a) => a.address)).toEqual(devAccounts().map((a) => a.address))
      expect(banner.accounts[0]!.privateKey).toBe(devAccounts()[0]!.privateKey)
      // Every URL is the bound one (port 0 resolved), and answers.
      expect((await rpc<string>(banner.jsonRpc.http, 'eth_getBalance', [banner.accounts[0]!.address, 'latest'])).result).toBe(
        `0x${BigInt(banner.accounts[0]!.balance).toString(16)}`,
      )
      expect(banner.jsonRpc.ws).toMatch(/^ws:\/\/127\.0\.0\.1:[1-9]\d*$/)
      const health = await fetch(`${banner.cometRpc.http}/health`)
      expect(health.status).toBe(200)
      expect(banner.cometRpc.websocket).toBe(`${banner.cometRpc.http.replace('http', 'ws')}/websocket`)
    } finally {
      json.kill('SIGINT')
    }
    expect(await exited, stderr).toBe(0)
  }, 60_000)

  it('is the start bundle, compiled from a code cache this Node.js accepts', () => {
    // In a plain `node` as bin/run.js runs (V8 refuses a cache made under other flags, such as a test worker's).
    const check = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { startBundleUsesCache } from './dist/cli/bundle-loader.js'; console.log(startBundleUsesCache())",
      ],
      { cwd: ROOT, encoding: 'utf8' },
    )
    expect(check.stdout.trim(), check.stderr).toBe('true')
  })

  it('makes the cache after a warm-up: a dev node started, its eth_call answered, stopped, its home removed', async () => {
    const warmUpHomes = () => readdirSync(tmpdir()).filter((name) => name.startsWith('nodectl-warm-up-'))
    const before = warmUpHomes()
    // Resolves only once the node served the call (otherwise it would wait for a signal) and stopped.
    await warmUp(ROOT)
    expect(warmUpHomes().filter((name) => !before.includes(name))).toEqual([])
  }, 60_000)

  it('fails in one format from the bundle and through oclif: usage errors exit 2 with a pointer to the help, failures exit 1, never wrapped', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), ...args], { cwd: ROOT, encoding: 'utf8' })
    const lines = (text: string) => text.trimEnd().split('\n')
    const badFlag = cli('start', '--bogus')
    expect(badFlag.status).toBe(2)
    expect(lines(badFlag.stderr)).toEqual(['Error: Nonexistent flag: --bogus', 'See "nodectl start --help".'])
    const switchValue = cli('start', '--dev', '--json-rpc.enable=maybe')
    expect(switchValue.status).toBe(2)
    expect(lines(switchValue.stderr)[0]).toBe(
      'Error: --json-rpc.enable is a switch and takes no value (got "maybe"): write --json-rpc.enable, or --no-json-rpc.enable to turn it off',
    )
    const badAddress = cli('query', 'balance', '0x12')
    expect(badAddress.status).toBe(2)
    expect(lines(badAddress.stderr)).toEqual([
      'Error: invalid address "0x12": want 0x followed by 40 hex digits',
      'See "nodectl query balance --help".',
    ])
    const unknown = cli('query', 'statuss')
    expect(unknown.status).toBe(2)
    expect(lines(unknown.stderr)).toEqual([
      'Error: unknown command "query statuss"; did you mean "query status"? (nodectl help lists the commands)',
    ])
    // A path longer than any terminal stays on the one line of the error (the bundle prints it).
    const home = join(
      mkdtempSync(join(tmpdir(), 'nodectl-binary-')),
      'a-home-whose-path-is-long-enough-to-have-been-wrapped-in-the-middle'.repeat(2),
    )
    try {
      const noGenesis = cli('start', '--home', home)
      expect(noGenesis.status).toBe(1)
      expect(lines(noGenesis.stderr)).toEqual([
        `Error: genesis.json: not found at ${join(home, 'config/genesis.json')}: run "nodectl init <moniker>" first`,
      ])
    } finally {
      rmSync(join(home, '..'), { recursive: true, force: true })
    }
  })

  it('names commands in kebab-case, the Ethereum subscription names still working as hidden aliases', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), ...args], { cwd: ROOT, encoding: 'utf8' })
    const topic = cli('subscribe', '--help')
    expect(topic.stdout).toMatch(/subscribe new-heads +Stream new blocks/)
    expect(topic.stdout).toMatch(/subscribe new-pending-transactions +Stream pending transactions/)
    expect(topic.stdout).not.toContain('newHeads')
    for (const alias of ['newHeads', 'newPendingTransactions']) {
      const help = cli('subscribe', alias, '--help')
      expect(help.status, alias).toBe(0)
      expect(help.stdout, alias).toContain('Stream ')
    }
  })

  it('takes -h as --help, for nodectl and every command', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), ...args], { cwd: ROOT, encoding: 'utf8' })
    for (const args of [['-h'], ['query', 'balance', '-h'], ['start', '-h']]) {
      const help = cli(...args)
      expect(help.status, args.join(' ')).toBe(0)
      expect(help.stdout, args.join(' ')).toContain('USAGE')
    }
  })

  it('completes commands and flags in bash (nodectl autocomplete)', () => {
    const cache = mkdtempSync(join(tmpdir(), 'nodectl-binary-'))
    try {
      const env = { ...process.env, XDG_CACHE_HOME: cache }
      const setup = spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), 'autocomplete', 'bash'], { cwd: ROOT, encoding: 'utf8', env })
      expect(setup.status, setup.stderr).toBe(0)
      expect(setup.stdout).toContain('nodectl autocomplete script bash')
      // What bash does on <TAB>: the completion function over the words typed so far.
      const complete = (...words: string[]) =>
        spawnSync(
          'bash',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template
          ['-c', 'source "$FN"; COMP_WORDS=($WORDS); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _nodectl_autocomplete; echo "${COMPREPLY[*]}"'],
          {
            encoding: 'utf8',
            env: { ...env, FN: join(cache, 'nodectl/autocomplete/functions/bash/nodectl.bash'), WORDS: ['nodectl', ...words].join(' ') },
          },
        ).stdout.trim()
      expect(complete('query', 'bal')).toBe('balance')
      expect(complete('query', 'balance', '--rp')).toBe('--rpc-url')
      expect(complete('keys', 'imp').split(' ')).toEqual(['import', 'import-keystore'])
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  })

  it('refuses --dev on a home made by nodectl init with status 1, its key store left empty', () => {
    const home = mkdtempSync(join(tmpdir(), 'nodectl-binary-'))
    const run = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), ...args], { cwd: ROOT, encoding: 'utf8' })
    try {
      expect(run('init', 'node0', '--home', home).status).toBe(0)
      const dev = run('start', '--dev', '--home', home)
      expect(dev.status).toBe(1)
      expect(dev.stderr).toContain(`--dev: ${home} holds chain nodectl_9000-1, which does not fund the 10 dev accounts`)
      expect(dev.stdout).not.toContain('Available Accounts')
      expect(readdirSync(join(home, 'keystore'))).toEqual([])
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('names an unknown command as typed, with the closest ones, status 2; help and version are commands', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), ...args], { cwd: ROOT, encoding: 'utf8' })
    const unknown = run('query', 'statuss')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('unknown command "query statuss"; did you mean "query status"?')
    const help = run('help', 'query', 'balance')
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('$ nodectl query balance ADDRESS')
    const version = run('version')
    expect(version.status).toBe(0)
    expect(version.stdout.trim()).toMatch(/^nodectl\/\d+\.\d+\.\d+ linux-x64 node-v\d+/)
  })
})
