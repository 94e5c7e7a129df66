/** nodectl's version, read once from package.json (two levels up from both src/node and dist/node). */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

export const NODECTL_VERSION: string = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }
).version
