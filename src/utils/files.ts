/** File helpers: whether a path exists, and replacing a file atomically. */
import { access, open, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'

/** Distinguishes the temporary files of one process; `wx` keeps two processes apart (their pids differ). */
let sequence = 0

/** True when `path` exists (file or folder). */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await access(path)
    return true
  } catch {
    return false
  }
}

/**
 * Replaces a file so that after a crash it is either the old or the new one: writes a temporary file in
 * the same folder (created exclusively), fsyncs it, renames it over the target, fsyncs the folder.
 */
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
