/**
 * The entry of the start bundle (src/cli/bundle-loader.ts): `nodectl start` with a well-formed argv,
 * without oclif. Reading its configuration and manifest and evaluating its modules took about a sixth of
 * spawn → a serving node; here the argv is read by cli/start-argv.ts and the node run by
 * cli/start-node.ts, as the oclif command runs them, and failures and warnings printed as every command
 * prints them (cli/failure.ts). Outside the layers: it only composes.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { errorText, EXIT_FAILURE, warningText } from './cli/failure.js'
import { parseStartArgv } from './cli/start-argv.js'
import { runNode, StartFailure } from './cli/start-node.js'
import { HttpRpcClient } from './rpc/client/http-client.js'

/**
 * Runs `nodectl start` with `argv` (the arguments after `start`) and exits; `root` is the package
 * folder. Returns false, having done nothing, when the argv is not one it reads (bin/run.js then runs
 * the command through oclif, which answers help and reports bad flags).
 */
export async function runStart(argv: string[], root: string): Promise<boolean> {
  const flags = parseStartArgv(argv)
  if (!flags) return false
  const version = packageVersion(root)
  try {
    await runNode(flags, version, {
      log: (line) => process.stdout.write(`${line}\n`),
      logToStderr: (line) => process.stderr.write(`${line}\n`),
      warn: (message) => process.stderr.write(`${warningText(message)}\n`),
    })
  } catch (err) {
    // As the oclif command (cli/nodectl-command.ts): the message, with the stack under DEBUG.
    const message = process.env.DEBUG && err instanceof Error && err.stack ? err.stack : (err as Error).message
    process.stderr.write(`${errorText(message)}\n`)
    process.exit(err instanceof StartFailure ? err.exit : EXIT_FAILURE)
  }
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()))
  process.exit(0)
}

function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version
}

/** Init code whose eth_call returns 42: `PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`. */
const RETURN_42 = '0x602a60005260206000f3'

/**
 * What the code cache is made after (src/cli/bundle-loader.ts, at build time): a `--dev` node started in
 * a temporary home on free ports, as `nodectl start --dev` starts one, answering one eth_call over HTTP,
 * then stopped. The functions a start runs are then compiled, so their bytecode is in the cache and a
 * start does not compile them one by one.
 */
export async function warmUp(root: string): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'nodectl-warm-up-'))
  const anyPort = '127.0.0.1:0'
  const flags = {
    dev: true,
    home,
    log_level: 'error',
    'json-rpc.address': anyPort,
    'json-rpc.ws-address': anyPort,
    'rpc.laddr': `tcp://${anyPort}`,
    'p2p.laddr': `tcp://${anyPort}`,
  }
  // Checked once runNode has returned: a throw from `serving` would skip the node's stop.
  let answer: unknown
  try {
    await runNode(flags, packageVersion(root), {
      log: () => {},
      logToStderr: () => {},
      warn: () => {},
      serving: async ({ jsonRpcHttp }) => {
        answer = await new HttpRpcClient(jsonRpcHttp!).call('eth_call', [{ data: RETURN_42 }, 'latest']).catch((err: Error) => err)
      },
    })
  } finally {
    await rm(home, { recursive: true, force: true })
  }
  if (typeof answer !== 'string' || BigInt(answer) !== 42n) throw new Error(`the warm-up eth_call answered ${String(answer)}`)
}
