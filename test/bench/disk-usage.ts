/** What a node's files take on disk, as `du` counts it: allocated blocks, not file lengths. */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Bytes of a statSync `blocks` unit (POSIX: 512, whatever the file system's block size). */
const BLOCK_BYTES = 512

/** The disk space of every file under `dir` (MB, one decimal); files removed while it walks are skipped. */
export function dirSizeMb(dir: string): number {
  return Math.round(dirBytes(dir) / 100_000) / 10
}

function dirBytes(dir: string): number {
  let bytes = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    try {
      bytes += entry.isDirectory() ? dirBytes(path) : statSync(path).blocks * BLOCK_BYTES
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }
  return bytes
}
