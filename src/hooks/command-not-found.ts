/**
 * oclif's `command_not_found` hook: an unknown command is named as the user typed it (words with
 * spaces) with the closest known commands, and exits 2 (a usage error), instead of oclif's
 * `command query:statuss not found`.
 */
import type { Hook } from '@oclif/core'
import { Errors, ux } from '@oclif/core'
import { errorText, EXIT_USAGE } from '../cli/failure.js'

/** At most this many suggestions. */
const SUGGESTIONS = 3

const hook: Hook.CommandNotFound = async (opts) => {
  const typed = opts.id.replaceAll(':', ' ')
  const known = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id.replaceAll(':', ' '))
  const close = known
    .map((id) => ({ id, distance: editDistance(typed, id) }))
    .filter((c) => c.distance <= Math.max(2, Math.floor(typed.length / 3)) || c.id.startsWith(`${typed} `))
    .sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id))
    .slice(0, SUGGESTIONS)
    .map((c) => `"${c.id}"`)
  const hint = close.length > 0 ? `; did you mean ${close.join(' or ')}?` : ''
  ux.stderr(errorText(`unknown command "${typed}"${hint} (nodectl help lists the commands)`))
  throw new Errors.ExitError(EXIT_USAGE)
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

export default hook
