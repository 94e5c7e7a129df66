#!/usr/bin/env node
// `nodectl start` runs from the start bundle when it is built (src/cli/bundle-loader.ts: one script with
// a V8 code cache and no oclif, so spawn → a serving node skips loading hundreds of modules); `start
// --help`, a `start` argv the bundle does not read (src/cli/start-argv.ts) and every other command go
// through oclif.
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const wantsBundle = args[0] === 'start' && !args.includes('--help') && !args.includes('-h')
const bundle = wantsBundle ? (await import('../dist/cli/bundle-loader.js')).loadStartBundle() : undefined
if (!(await bundle?.runStart(args.slice(1), fileURLToPath(new URL('..', import.meta.url))))) {
  const { execute } = await import('@oclif/core')
  await execute({ dir: import.meta.url })
}
