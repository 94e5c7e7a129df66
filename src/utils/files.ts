/** File helpers: whether a path exists, and replacing a file atomically. */
import { closeSync, fsync, open, openSync, rename, rmSync, writeSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { dirname } from 'node:path'
import { promisify } from 'node:util'

const openAsync = promisify(open)
const fsyncAsync = promisify(fsync)
const renameAsync = promisify(rename)

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
 *
 * What waits on the disk or on the file system's journal (creating the file, the fsyncs, the rename)
 * runs on the thread pool; writing a few hundred bytes into the page cache, closing and opening the
 * folder are made in place, as each step sent to the thread pool costs a trip through the event loop. The signer's state
 * is written this way before every signature, three times a height.
 */
export async function writeFileAtomic(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.${++sequence}.tmp`
  const fd = await openAsync(tmp, 'wx', mode)
  try {
    const bytes = Buffer.from(text, 'utf8')
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off)
    await fsyncAsync(fd)
  } catch (err) {
    closeSync(fd)
    rmSync(tmp, { force: true })
    throw err
  }
  closeSync(fd)
  try {
    await renameAsync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
  await syncFolder(dirname(path))
}

/** Makes a rename in `folder` durable; some file systems refuse fsync on a folder (the rename is still atomic). */
async function syncFolder(folder: string): Promise<void> {
  let fd: number
  try {
    // A look-up, nothing written: made in place, as a trip through the thread pool costs more.
    fd = openSync(folder, 'r')
  } catch {
    return
  }
  try {
    await fsyncAsync(fd)
  } catch {
    // Refused: the rename is atomic all the same.
  } finally {
    closeSync(fd)
  }
}
