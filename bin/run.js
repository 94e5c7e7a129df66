#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072 MALLOC_MMAP_THRESHOLD_=131072 node
// glibc's malloc, set where it reads them, in the environment at exec (other C libraries ignore them):
// at most two arenas instead of eight a core, and trim and mmap thresholds fixed at 128 KiB instead of
// rising to the largest block freed so far. Each thread that allocates under contention gets an arena
// of its own (libuv's pool, V8's helper threads, the call workers) and keeps what it freed: a node after
// the benchmark's workloads held 95 MB free in eleven arenas around 42 MB in use. The `#!` line is the
// one place that sets them for `nodectl` itself (`env -S`: GNU coreutils 8.30+, BSD and macOS; npm's
// Windows shims set them too; BusyBox's env, as on Alpine, has no -S: start it there with
// `node bin/run.js`, which runs without them, as does any `node bin/run.js`).
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
