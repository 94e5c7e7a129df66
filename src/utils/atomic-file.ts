/**
 * Replacing a file so that after a crash it is either the old or the new one: write a temporary file in
 * the same folder (created exclusively), fsync it, rename it over the target, fsync the folder.
 */
import { open, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'

/** Distinguishes the temporary files of one process; `wx` keeps two processes apart (their pids differ). */
let sequence = 0

export async function writeFileAtomic(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.${++sequence}.tmp`
  const handle = await open(tmp, 'wx', mode)
  try {
    await handle.writeFile(text, 'utf8')
    await handle.sync()
    await handle.close()
    await rename(tmp, path)
  } catch (err) {
    await handle.close().catch(() => {})
    await rm(tmp, { force: true })
    throw err
  }
  try {
    const folder = await open(dirname(path), 'r')
    try {
      await folder.sync()
    } finally {
      await folder.close()
    }
  } catch {
    // Some file systems refuse fsync on a folder; the rename is still atomic.
  }
}
