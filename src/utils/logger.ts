/**
 * Structured logger: a constant message plus a context object. Nothing below `commands/` prints to
 * the console directly; the command that builds the node chooses the sink.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'none'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export type LogFormat = 'plain' | 'json'
export type LogContext = Record<string, unknown>

export interface Logger {
  debug(msg: string, ctx?: LogContext): void
  info(msg: string, ctx?: LogContext): void
  warn(msg: string, ctx?: LogContext): void
  error(msg: string, ctx?: LogContext): void
  /** A logger that adds `module` (and any other fields) to every line. */
  child(fields: LogContext): Logger
}

export interface LoggerOptions {
  level: LogLevel
  format: LogFormat
  /** Where lines go; defaults to process.stderr. */
  write?: (line: string) => void
  /** Plain lines with ANSI colours: the level by severity, the keys dimmed (a terminal; default false). */
  color?: boolean
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, none: 100 }

/** ANSI colours of the levels: grey, green, yellow, red. */
const LEVEL_COLOR: Record<LogLevel, number> = { debug: 90, info: 32, warn: 33, error: 31, none: 0 }
const DIM = 2

function paint(code: number, text: string): string {
  return `\x1b[${code}m${text}\x1b[0m`
}

function formatValue(v: unknown): string {
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
  if (v instanceof Error) return JSON.stringify(v.message)
  if (typeof v === 'string') return /\s/.test(v) ? JSON.stringify(v) : v
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))
}

export function createLogger(opts: LoggerOptions, fields: LogContext = {}): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'))
  const min = RANK[opts.level]
  const emit = (level: LogLevel, msg: string, ctx?: LogContext): void => {
    if (RANK[level] < min) return
    const all = { ...fields, ...ctx }
    if (opts.format === 'json') {
      write(
        JSON.stringify({ level, time: new Date().toISOString(), msg, ...all }, (_k, x) =>
          typeof x === 'bigint'
            ? x.toString()
            : x instanceof Uint8Array
              ? Buffer.from(x).toString('hex')
              : x instanceof Error
                ? x.message
                : x,
        ),
      )
      return
    }
    const time = new Date().toISOString().slice(11, 23)
    // A field without a value (undefined or null) is left out rather than printed as `key=null`.
    const kv = Object.entries(all)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => (opts.color ? `${paint(DIM, `${k}=`)}${formatValue(v)}` : `${k}=${formatValue(v)}`))
      .join(' ')
    const label = level.toUpperCase().padEnd(5)
    const head = opts.color ? `${paint(DIM, time)} ${paint(LEVEL_COLOR[level], label)}` : `${time} ${label}`
    write(`${head} ${msg}${kv ? ' ' + kv : ''}`)
  }
  return {
    debug: (m, c) => emit('debug', m, c),
    info: (m, c) => emit('info', m, c),
    warn: (m, c) => emit('warn', m, c),
    error: (m, c) => emit('error', m, c),
    child: (f) => createLogger(opts, { ...fields, ...f }),
  }
}

/** A logger that drops everything (tests, library use). */
export const silentLogger: Logger = createLogger({ level: 'none', format: 'plain', write: () => {} })
