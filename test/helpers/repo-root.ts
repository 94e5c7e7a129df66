/**
 * The repository root: the nearest folder above this module holding `package.json`. Found by walking
 * up rather than by a fixed `../..`, because this module runs both from `test/helpers/` (vitest) and
 * compiled into `dist-bench/test/helpers/` (`npm run bench`).
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'

function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`)
  }
}

export const REPO_ROOT = findRoot(import.meta.dirname)
