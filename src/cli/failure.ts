/**
 * How every nodectl command reports a failure or a warning: one `Error: <message>` (or `Warning: …`)
 * line for stderr, never wrapped, so a hash, a path or a URL stays whole and can be copied; usage errors
 * add a pointer to the command's help. The lines are made here and printed by the commands (and by the
 * start bundle, which loads no oclif).
 */

/** Exit status of a command that failed. */
export const EXIT_FAILURE = 1
/** Exit status of a command that was given bad flags, arguments or URLs. */
export const EXIT_USAGE = 2

/** `Error: <message>` and, for a usage error, a second line saying where the help is. */
export function errorText(message: string, helpOf?: string): string {
  const hint = helpOf === undefined ? '' : `\nSee "nodectl ${helpOf}${helpOf === '' ? '' : ' '}--help".`
  return `Error: ${message}${hint}`
}

/** `Warning: <message>`. */
export function warningText(message: string): string {
  return `Warning: ${message}`
}

/** A value on the command line that cannot be used (an address, a block, an amount…): exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}
