/**
 * Runs an oclif command class in-process and captures what it prints (oclif writes through
 * console.log / console.error). Resets process.exitCode, which oclif sets on errors.
 */
import { resolve } from 'node:path'
import { vi } from 'vitest'

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
  done: Promise<CliRun<Awaited<T>>>
}

export function startCli<T>(command: CommandClass<T>, argv: string[]): StartedCli<T> {
  const stdout: string[] = []
  const stderr: string[] = []
  const out = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void stdout.push(args.map(String).join(' ')))
  const err = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void stderr.push(args.map(String).join(' ')))
  const saved = process.exitCode
  process.exitCode = undefined
  const done = (async (): Promise<CliRun<Awaited<T>>> => {
    try {
      const result = await command.run(argv, ROOT)
      return { result, stdout, stderr, exitCode: process.exitCode as number | undefined }
    } catch (error) {
      return { error: error as Error, stdout, stderr, exitCode: (error as { oclif?: { exit?: number } }).oclif?.exit ?? (process.exitCode as number | undefined) }
    } finally {
      process.exitCode = saved
      out.mockRestore()
      err.mockRestore()
    }
  })()
  return { stdout, stderr, done }
}

/** Runs a command to completion. */
export function runCli<T>(command: CommandClass<T>, argv: string[]): Promise<CliRun<Awaited<T>>> {
  return startCli(command, argv).done
}

/** Parses the single JSON document printed with --json. */
export function jsonOf(run: CliRun<unknown>): any {
  return JSON.parse(run.stdout.join('\n'))
}
