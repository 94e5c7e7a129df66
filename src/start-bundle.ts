/**
 * The entry of the start bundle (src/cli/bundle-loader.ts): `nodectl start` with a well-formed argv,
 * without oclif. Reading its configuration and manifest and evaluating its modules took about a sixth of
 * spawn → a serving node; here the argv is read by cli/start-argv.ts and the node run by
 * cli/start-node.ts, as the oclif command runs them. oclif is loaded (from node_modules, outside the
 * bundle) only to print a failure or a warning its own way. Outside the layers: it only composes.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { parseStartArgv } from './cli/start-argv.js'
import { runNode, StartFailure } from './cli/start-node.js'

/** What the bundle uses of @oclif/core when something is to be reported. */
interface Oclif {
  Errors: { CLIError: new (message: string, options: { exit: number }) => Error; warn(message: string): void }
  handle(err: Error): Promise<void>
}

/**
 * Runs `nodectl start` with `argv` (the arguments after `start`) and exits; `root` is the package
 * folder. Returns false, having done nothing, when the argv is not one it reads (bin/run.js then runs
 * the command through oclif, which answers help and reports bad flags).
 */
export async function runStart(argv: string[], root: string): Promise<boolean> {
  const flags = parseStartArgv(argv)
  if (!flags) return false
  let oclif: Oclif | undefined
  const loadOclif = (): Oclif => (oclif ??= createRequire(join(root, 'package.json'))('@oclif/core') as Oclif)
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  try {
    await runNode(flags, version, {
      log: (line) => process.stdout.write(`${line}\n`),
      logToStderr: (line) => process.stderr.write(`${line}\n`),
      warn: (message) => loadOclif().Errors.warn(message),
    })
  } catch (err) {
    const { Errors, handle } = loadOclif()
    // As the oclif command: this.error(message, { exit }) for a failure, anything else as thrown.
    await handle(err instanceof StartFailure ? new Errors.CLIError(err.message, { exit: err.exit }) : (err as Error))
    return true
  }
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()))
  process.exit(0)
}
