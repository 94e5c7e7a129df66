/**
 * The argv of `nodectl start`: the boolean spellings it accepts besides oclif's, and the start bundle's
 * own reading of a well-formed argv, so that a node starts without loading oclif. The flags are the
 * oclif command's (commands/start.ts): --home, --dev, --abci and one per setting (config/settings.ts).
 */
import { SETTINGS } from '../config/settings.js'
import type { StartFlags } from './start-node.js'

/** Flags whose value is a boolean (`--x`, `--no-x`, and here also `--x=true|false`, as cobra accepts). */
const BOOLEAN_FLAGS = new Set(['dev', 'abci', 'json', ...SETTINGS.filter((s) => s.flagKind === 'boolean').map((s) => s.flag)])
/** Boolean flags that also take `--no-<flag>` (every setting; not --dev, --abci or --json). */
const NEGATABLE_FLAGS = new Set(SETTINGS.filter((s) => s.flagKind === 'boolean').map((s) => s.flag))
/** Flags that take a value. */
const VALUE_FLAGS = new Set(['home', ...SETTINGS.filter((s) => s.flagKind !== 'boolean').map((s) => s.flag)])

/** Rewrites `--flag=true` to `--flag` and `--flag=false` to `--no-flag` for boolean settings (Evmos docs write `--json-rpc.enable=true`). */
export function normalizeBooleanArgs(argv: string[]): string[] {
  return argv.map((arg) => {
    const m = /^--([^=]+)=(true|false)$/i.exec(arg)
    if (!m || !BOOLEAN_FLAGS.has(m[1]!)) return arg
    return m[2]!.toLowerCase() === 'true' ? `--${m[1]}` : `--no-${m[1]}`
  })
}

/**
 * The flags of a well-formed `start` argv, as oclif parses them; undefined for anything else (help, an
 * unknown or repeated flag, a missing or dash-led value, an argument, the hidden test flags), which
 * then goes through oclif for its own answer and error messages.
 */
export function parseStartArgv(argv: string[]): StartFlags | undefined {
  const flags: StartFlags = {}
  const args = normalizeBooleanArgs(argv)
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith('--')) return undefined
    const eq = arg.indexOf('=')
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq)
    let key: string
    let value: string | boolean
    if (VALUE_FLAGS.has(name)) {
      const next = eq < 0 ? args[++i] : arg.slice(eq + 1)
      if (next === undefined || next === '' || next.startsWith('-')) return undefined
      key = name
      value = next
    } else if (eq >= 0) {
      return undefined
    } else if (BOOLEAN_FLAGS.has(name)) {
      key = name
      value = true
    } else if (name.startsWith('no-') && NEGATABLE_FLAGS.has(name.slice(3))) {
      key = name.slice(3)
      value = false
    } else {
      return undefined
    }
    if (Object.hasOwn(flags, key)) return undefined
    flags[key] = value
  }
  return flags
}
