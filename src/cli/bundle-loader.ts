/**
 * The start bundle: `nodectl start` from one prebuilt CommonJS script (dist/bundle/start.cjs, made by
 * scripts/build-start-bundle.mjs from src/start-bundle.ts) compiled with a V8 code cache made at build time
 * (start.cjs.cache). Loading the command module by module costs about a second before the node starts
 * (several hundred ES modules resolved, read and compiled one by one); one script whose compiled code
 * is read back from the cache costs a small fraction of it. A cache that V8 refuses (another Node.js
 * version) is ignored: the script is then compiled from source.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

/** Path of the bundle; its code cache is next to it with `.cache` appended. */
export const START_BUNDLE_PATH = fileURLToPath(new URL('../bundle/start.cjs', import.meta.url))
const CACHE_PATH = `${START_BUNDLE_PATH}.cache`
/** The package folder (dist/cli/ is two levels below it). */
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** What src/start-bundle.ts exports. */
export interface StartBundle {
  /** Runs `nodectl start` and exits; false, having done nothing, for an argv it leaves to oclif. */
  runStart(argv: string[], root: string): Promise<boolean>
  /** Starts a `--dev` node in a temporary home, makes one eth_call and stops it (before the cache is written). */
  warmUp(root: string): Promise<void>
}

interface LoadedBundle {
  exports: StartBundle
  script: vm.Script
  /** True when V8 used the code cache. */
  cached: boolean
}

function readOptional(path: string): Buffer | undefined {
  try {
    return readFileSync(path)
  } catch {
    return undefined
  }
}

/** Compiles and evaluates the bundle as CommonJS does; undefined when it was not built. */
function load(useCache: boolean): LoadedBundle | undefined {
  const source = readOptional(START_BUNDLE_PATH)
  if (!source) return undefined
  const cachedData = useCache ? readOptional(CACHE_PATH) : undefined
  // On the bundle's first line, so line numbers in stack traces are the bundle's own.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source.toString('utf8')}\n})`
  // `import()` inside the bundle (oclif's loader of ES-module plugins) goes to Node's own loader;
  // Node.js releases before the constant (it is in 20.20) leave it to the default, which refuses.
  const importModuleDynamically = (vm.constants as Partial<typeof vm.constants> | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER
  const script = new vm.Script(wrapped, {
    filename: START_BUNDLE_PATH,
    cachedData,
    ...(importModuleDynamically ? { importModuleDynamically } : {}),
  })
  const module = { exports: {} as StartBundle }
  const init = script.runInThisContext() as (...args: unknown[]) => void
  init(module.exports, createRequire(START_BUNDLE_PATH), module, START_BUNDLE_PATH, dirname(START_BUNDLE_PATH))
  return { exports: module.exports, script, cached: cachedData !== undefined && !script.cachedDataRejected }
}

/** The start bundle's exports, or undefined when it was not built (bin/run.js then goes through oclif). */
export function loadStartBundle(): StartBundle | undefined {
  return load(true)?.exports
}

/**
 * Evaluates the bundle, warms it up (a dev node started, asked one eth_call and stopped: see the
 * bundle's `warmUp`) and writes the code cache of everything compiled by then (build time). A warm-up
 * that fails is reported and the cache is written without it: the bundle's top level then, and a start
 * compiles the rest as it goes (about 40 ms more here). Returns the cache's size in bytes.
 */
export async function writeStartBundleCache(): Promise<number> {
  const loaded = load(false)
  if (!loaded) throw new Error(`${START_BUNDLE_PATH} is missing: build it first`)
  await loaded.exports.warmUp(PACKAGE_ROOT).catch((err: unknown) => {
    process.stderr.write(`start bundle: warm-up failed, code cache without it: ${(err as Error).message}\n`)
  })
  const data = loaded.script.createCachedData()
  writeFileSync(CACHE_PATH, data)
  return data.length
}

/** Whether the bundle loads with its code cache accepted (tests). */
export function startBundleUsesCache(): boolean {
  return load(true)?.cached === true
}
