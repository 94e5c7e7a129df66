/** A logger for tests that keeps the node's lines and lets a test await one instead of sleeping. */
import { createLogger, type Logger, type LogLevel } from '../../src/utils/logger.js'

export interface LogCapture {
  logger: Logger
  /** Every line logged so far. */
  readonly lines: readonly string[]
  /** The first line (already logged or still to come) that matches. */
  logged(match: RegExp): Promise<string>
}

export function captureLog(level: LogLevel = 'warn'): LogCapture {
  const lines: string[] = []
  const waiters: { match: RegExp; resolve: (line: string) => void }[] = []
  const write = (line: string): void => {
    lines.push(line)
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (!waiters[i]!.match.test(line)) continue
      waiters[i]!.resolve(line)
      waiters.splice(i, 1)
    }
  }
  return {
    logger: createLogger({ level, format: 'plain', write }),
    lines,
    logged: (match) => {
      const seen = lines.find((line) => match.test(line))
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }))
    },
  }
}
