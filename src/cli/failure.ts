/**
 * How every nodectl command reports a failure or a warning: one `Error: <message>` (or `Warning: …`)
 * on stderr, never wrapped, so a hash, a path or a URL stays whole and can be copied; usage errors add a
 * pointer to the command's help. The start bundle prints with these too, without loading oclif.
 */

/** Exit status of a command that failed. */
export const EXIT_FAILURE = 1
/** Exit status of a command that was given bad flags, arguments or URLs. */
export const EXIT_USAGE = 2

/** Writes `Error: <message>` and, for a usage error, where the help is. */
export function printError(message: string, helpOf?: string): void {
  const hint = helpOf === undefined ? '' : `\nSee "nodectl ${helpOf}${helpOf === '' ? '' : ' '}--help".`
  console.error(`Error: ${message}${hint}`)
}

/** Writes `Warning: <message>`. */
export function printWarning(message: string): void {
  console.error(`Warning: ${message}`)
}

/** A value on the command line that cannot be used (an address, a block, an amount…): exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}
