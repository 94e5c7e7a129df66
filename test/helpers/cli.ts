/**
 * Runs an oclif command class in-process and captures what it prints (oclif writes through
 * console.log / console.error). Resets process.exitCode, which oclif sets on errors. A test waits for
 * a printed line, or for the moment the command's client has the node's answer, instead of sleeping.
 */
import { resolve } from 'node:path'
import { vi } from 'vitest'
import { HttpRpcClient, WsRpcClient } from '../../src/rpc/client/index.js'

/** The package root, where oclif finds package.json. */
export const ROOT = resolve(import.meta.dirname, '../..')

export interface CliRun<T> {
  /** What run() returned (undefined when it failed in --json mode). */
  result?: T
  /** The error thrown (non --json failures). */
  error?: Error & { oclif?: { exit?: number } }
  stdout: string[]
  stderr: string[]
  /** process.exitCode as oclif left it. */
  exitCode: number | undefined
}

/** A command class as oclif exports it. */
interface CommandClass<T> {
  run(argv: string[], root: string): Promise<T>
}

/** A command running in the background; `stdout`/`stderr` fill as it prints. Run one at a time. */
export interface StartedCli<T> {
  stdout: string[]
  stderr: string[]
  /** The first line of `stream` at index `from` or later that `match` accepts, as soon as it is printed. */
  line(stream: 'stdout' | 'stderr', match?: (line: string) => boolean, from?: number): Promise<string>
  done: Promise<CliRun<Awaited<T>>>
}

export function startCli<T>(command: CommandClass<T>, argv: string[]): StartedCli<T> {
  const stdout: string[] = []
  const stderr: string[] = []
  const printed = { stdout, stderr }
  const waiters = new Set<() => void>()
  const print =
    (lines: string[]) =>
    (...args: unknown[]): void => {
      lines.push(args.map(String).join(' '))
      for (const waiter of [...waiters]) waiter()
    }
  const line = (stream: 'stdout' | 'stderr', match: (line: string) => boolean = () => true, from = 0): Promise<string> =>
    new Promise((resolve) => {
      const lines = printed[stream]
      let next = from
      const check = (): void => {
        for (; next < lines.length; next++) {
          if (!match(lines[next]!)) continue
          waiters.delete(check)
          resolve(lines[next]!)
          return
        }
      }
      waiters.add(check)
      check()
    })
  const out = vi.spyOn(console, 'log').mockImplementation(print(stdout))
  const err = vi.spyOn(console, 'error').mockImplementation(print(stderr))
  const saved = process.exitCode
  process.exitCode = undefined
  const done = (async (): Promise<CliRun<Awaited<T>>> => {
    try {
      const result = await command.run(argv, ROOT)
      return { result, stdout, stderr, exitCode: process.exitCode as number | undefined }
    } catch (error) {
      return {
        error: error as Error,
        stdout,
        stderr,
        exitCode: (error as { oclif?: { exit?: number } }).oclif?.exit ?? (process.exitCode as number | undefined),
      }
    } finally {
      process.exitCode = saved
      out.mockRestore()
      err.mockRestore()
    }
  })()
  return { stdout, stderr, line, done }
}

/** Runs a command to completion with stdout seen as a terminal: the human tables (into a pipe they are tab-separated lines). */
export function runCliOnTerminal<T>(command: CommandClass<T>, argv: string[]): Promise<CliRun<Awaited<T>>> {
  return withStdoutTerminal(true, () => runCli(command, argv))
}

/** Runs a command to completion. */
export function runCli<T>(command: CommandClass<T>, argv: string[]): Promise<CliRun<Awaited<T>>> {
  return startCli(command, argv).done
}

/** Resolves once the next `WsRpcClient.subscribe` has the node's subscription id: the stream is live. */
export function nextSubscription(): Promise<void> {
  const subscribe = WsRpcClient.prototype.subscribe
  return new Promise((resolve) => {
    const spy = vi.spyOn(WsRpcClient.prototype, 'subscribe').mockImplementation(async function (this: WsRpcClient, ...args) {
      spy.mockRestore()
      const subscription = await subscribe.apply(this, args)
      resolve()
      return subscription
    })
  })
}

/** Resolves once an `HttpRpcClient` call of `method` has the node's answer (a filter is installed, say). */
export function nextAnswer(method: string): Promise<void> {
  const call = HttpRpcClient.prototype.call
  return new Promise((resolve) => {
    const spy = vi.spyOn(HttpRpcClient.prototype, 'call').mockImplementation(async function (this: HttpRpcClient, name, params) {
      const answer = await call.call(this, name, params)
      if (name === method) {
        spy.mockRestore()
        resolve()
      }
      return answer
    })
  })
}

/** Parses the single JSON document printed with --json, as the type the caller reads. */
export function jsonOf<T = unknown>(run: CliRun<unknown>): T {
  return JSON.parse(run.stdout.join('\n')) as T
}

/** Runs `fn` with process.stdout seen as a terminal (`true`) or as a pipe (`false`), as commands check it. */
export async function withStdoutTerminal<T>(isTTY: boolean, fn: () => Promise<T>): Promise<T> {
  const saved = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY')
  Object.defineProperty(process.stdout, 'isTTY', { value: isTTY, configurable: true })
  try {
    return await fn()
  } finally {
    if (saved) Object.defineProperty(process.stdout, 'isTTY', saved)
    else delete (process.stdout as { isTTY?: boolean }).isTTY
  }
}
