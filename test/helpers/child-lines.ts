/** Reading what a test's child process reports on its stdout, one JSON line per event. */
import type { ChildProcess } from 'node:child_process'

/** Longest wait for a line of the child, in ms. */
const LINE_TIMEOUT_MS = 30_000

/** The child's first stdout line starting with `prefix`, parsed; rejects if it exits first or stays silent. */
export function lineOf<T>(child: ChildProcess, prefix: string, output: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${prefix}" line from the child: ${output.join('\n')}`)), LINE_TIMEOUT_MS)
    let buffered = ''
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString()
      let nl = buffered.indexOf('\n')
      while (nl >= 0) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        output.push(line)
        if (line.startsWith(prefix)) {
          child.stdout!.off('data', onData)
          child.off('exit', onExit)
          clearTimeout(timer)
          resolve(JSON.parse(line.slice(prefix.length)) as T)
          return
        }
        nl = buffered.indexOf('\n')
      }
    }
    const onExit = (code: number | null): void => {
      clearTimeout(timer)
      reject(new Error(`child exited (${code}) before "${prefix}": ${output.join('\n')}`))
    }
    child.stdout!.on('data', onData)
    child.on('exit', onExit)
  })
}
