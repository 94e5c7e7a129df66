/**
 * The entry of the start bundle (src/cli/bundle-loader.ts): `nodectl start` as oclif's `execute()`
 * runs it (the same configuration, flag parsing, output, errors and exit statuses), without oclif
 * finding the command among the others first. Outside the layers: it only composes the command.
 */
import { Config, flush, handle } from '@oclif/core'
import Start from './commands/start.js'

/** Runs `nodectl start` with `argv` (the arguments after `start`); `root` is the package folder. */
export async function runStart(argv: string[], root: string): Promise<void> {
  try {
    await Start.run(argv, await Config.load({ root }))
    await flush()
  } catch (err) {
    await handle(err as Error)
  }
}
