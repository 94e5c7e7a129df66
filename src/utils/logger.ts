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
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, none: 100 }

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
    const kv = Object.entries(all)
      .map(([k, v]) => `${k}=${formatValue(v)}`)
      .join(' ')
    write(`${time} ${level.toUpperCase().padEnd(5)} ${msg}${kv ? ' ' + kv : ''}`)
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
