/**
 * The base of every nodectl command: failures and warnings in one format (failure.ts), usage errors with
 * exit status 2 and a pointer to the command's help instead of oclif's help dump, and `--json` failures
 * as `{"error": {"message"}}` on stdout.
 */
import { Command, Errors, settings, ux } from '@oclif/core'
import { errorText, EXIT_FAILURE, EXIT_USAGE, UsageError, warningText } from './failure.js'

/** oclif's parse errors (unknown flag, missing or unexpected argument, bad option) carry `parse`. */
function isParseError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'parse' in err && (err as { parse?: unknown }).parse !== undefined
}

/** oclif appends this to every parse error; the pointer to the help replaces it. */
const OCLIF_HELP_HINT = /\nSee more help with --help$/

export abstract class NodectlCommand extends Command {
  override warn(input: string | Error): string | Error {
    // On stderr with --json too (stdout keeps the JSON).
    ux.stderr(warningText(typeof input === 'string' ? input : input.message))
    return input
  }

  /** `--json` errors: `{"error": {"message"}}` (oclif's default would drop the message). */
  protected override toErrorJson(err: unknown): unknown {
    return { error: { message: (err as { message?: string }).message ?? String(err) } }
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err
    const usage = isParseError(err) || err instanceof UsageError
    const code = usage ? EXIT_USAGE : (err.oclif?.exit ?? EXIT_FAILURE)
    // The stack only under DEBUG=*, as oclif: the message of a failure is what a user needs.
    const message = isParseError(err) ? this.usageMessage(err) : settings.debug ? (err.stack ?? err.message) : err.message
    if (this.jsonEnabled()) {
      this.logJson(this.toErrorJson(Object.assign(err, { message })))
      process.exitCode = code
      return undefined
    }
    ux.stderr(errorText(message, usage ? (this.id?.replaceAll(':', ' ') ?? '') : undefined))
    // Printed: oclif's handler only exits with the code (it would print again, wrapped).
    throw Object.assign(new Errors.CLIError(message, { exit: code }), { skipOclifErrorHandling: true })
  }

  /** A parse error's message, naming the flag when a switch was given a value (`--dev=maybe`). */
  private usageMessage(err: Error): string {
    const flags = (this.ctor.flags ?? {}) as Record<string, { type?: string; allowNo?: boolean }>
    for (const arg of this.argv) {
      const m = /^--([^=]+)=(.*)$/.exec(arg)
      if (!m || flags[m[1]!]?.type !== 'boolean') continue
      const off = flags[m[1]!]!.allowNo ? `, or --no-${m[1]} to turn it off` : ''
      return `--${m[1]} is a switch and takes no value (got "${m[2]}"): write --${m[1]}${off}`
    }
    return err.message.replace(OCLIF_HELP_HINT, '')
  }
}
