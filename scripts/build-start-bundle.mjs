/**
 * Builds the start bundle (src/cli/bundle-loader.ts): dist/start-bundle.js and everything it
 * imports in one CommonJS file, dist/bundle/start.cjs, then its V8 code cache, made after a warm-up
 * start (see writeStartBundleCache), and the call workers' thread, dist/bundle/call-worker.cjs. Run by
 * `npm run build` after tsc. The installed packages are bundled as they are: the build fails unless
 * every file patches/ edits has all its edits (dependency-patches.mjs, which `npm install` runs), and
 * it records those files' SHA-256 in dist/bundle/patched-inputs.json, so a test can check that the
 * bundle holds the files the suites load. Left outside: native addons and their loader, packages that
 * read files next to their own modules (QuickJS's WebAssembly), oclif (loaded from node_modules only
 * to report a failure) and ws's optional native UTF-8 validator (never loaded: Node.js has its own).
 */
import { spawnSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { checkPatched, sha256, verifyPatches } from './dependency-patches.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const evmEsm = join(root, 'node_modules/@ethereumjs/evm/dist/esm')

/**
 * @ethereumjs/evm imports @noble/curves' BLS12-381 and BN254 at load, which build their tables then
 * (about 0.2 s); only the precompiles at 0x06-0x08 and 0x0b-0x11 use them. Their noble adapters are
 * replaced by classes that load the real adapter (the original module, required lazily, so evaluated
 * on first use) when a precompile first calls them.
 */
const lazyCurves = {
  name: 'lazy-curves',
  setup(b) {
    b.onLoad({ filter: /precompiles[\\/](bls12_381|bn254)[\\/]noble\.js$/ }, (args) => {
      if (args.suffix === '?original') return undefined
      const name = args.path.includes('bls12_381') ? 'NobleBLS' : 'NobleBN254'
      const original = JSON.stringify(`${args.path}?original`)
      return {
        loader: 'js',
        contents: `let Original
export class ${name} {
  constructor(...args) {
    let impl
    const target = () => (impl ??= new (Original ??= require(${original}).${name})(...args))
    return new Proxy({}, { get: (_, key) => { const t = target(); const v = t[key]; return typeof v === 'function' ? v.bind(t) : v } })
  }
}`,
      }
    })
    b.onResolve({ filter: /\?original$/ }, (args) => ({ path: args.path.slice(0, -'?original'.length), suffix: '?original' }))
  },
}

/**
 * Each patched file, checked as esbuild reads it (the same check as before the build, on the very bytes
 * bundled); `bundled` collects the hashes of those read.
 */
function patchedInputs(bundled) {
  const targets = new Map(verifyPatches().map((target) => [target.path, target]))
  return {
    name: 'patched-inputs',
    setup(b) {
      const filter = new RegExp(`^(${[...targets.keys()].map(escapeRegExp).join('|')})$`)
      b.onLoad({ filter }, async (args) => {
        const target = targets.get(args.path)
        const contents = await readFile(args.path, 'utf8')
        checkPatched(target, contents)
        bundled.set(relative(root, args.path), sha256(contents))
        return { loader: 'js', contents }
      })
    },
  }
}

function escapeRegExp(text) {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
}

/** evm-interpreter-module.ts loads the Interpreter by file URL; in the bundle it is the bundled copy. */
const bundledInterpreter = {
  name: 'bundled-interpreter',
  setup(b) {
    b.onLoad({ filter: /[\\/]evm-interpreter-module\.js$/ }, () => ({
      loader: 'js',
      contents: `import * as m from ${JSON.stringify(join(evmEsm, 'interpreter.js'))}
export async function importInterpreterModule() { return m }`,
    }))
  },
}

/**
 * classic-level's JavaScript is bundled; its native binding is found from the installed package, not
 * from the bundle's folder (node-gyp-build looks next to the file that asks).
 */
const classicLevelBinding = {
  name: 'classic-level-binding',
  setup(b) {
    b.onLoad({ filter: /[\\/]classic-level[\\/]binding\.js$/ }, () => ({
      loader: 'js',
      contents:
        "module.exports = require('node-gyp-build')(require('node:path').dirname(require.resolve('classic-level/package.json')))",
    }))
  },
}

/** Paths (from the project's root) and SHA-256 of the patched files the bundles hold. */
const bundled = new Map()

/** What both bundles are built with. */
const shared = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  external: ['node-gyp-build', 'classic-level/package.json', 'secp256k1', 'keccak', 'quickjs-emscripten', '@jitl/*', '@oclif/core', 'utf-8-validate'],
  // ws requires its optional native helper (not a dependency) at load unless told not to: a failed
  // module search at every start, for a copy Node.js's own Buffer methods make needless.
  define: { 'import.meta.url': '__bundle_url', 'import.meta.dirname': '__dirname', 'process.env.WS_NO_BUFFER_UTIL': '"1"' },
  banner: { js: "const __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [lazyCurves, patchedInputs(bundled), bundledInterpreter, classicLevelBinding],
  logLevel: 'warning',
}

await Promise.all([
  build({ ...shared, entryPoints: [join(root, 'dist/start-bundle.js')], outfile: join(root, 'dist/bundle/start.cjs') }),
  build({ ...shared, entryPoints: [join(root, 'dist/evm/calls/call-worker.js')], outfile: join(root, 'dist/bundle/call-worker.cjs') }),
])
const missing = verifyPatches().filter((target) => !bundled.has(relative(root, target.path)))
if (missing.length > 0) throw new Error(`start bundle: patched files not bundled: ${missing.map((t) => t.path).join(', ')}`)
await writeFile(join(root, 'dist/bundle/patched-inputs.json'), `${JSON.stringify(Object.fromEntries([...bundled].sort()), null, 2)}\n`)

// The cache is made by the Node.js that will run the bundle (V8 refuses a cache of another version),
// in a process of its own that exits once it is written (the warm-up's node has stopped by then).
const made = spawnSync(
  process.execPath,
  ['--input-type=module', '-e', "import { writeStartBundleCache } from './dist/cli/bundle-loader.js'; await writeStartBundleCache(); process.exit(0)"],
  { cwd: root, stdio: 'inherit' },
)
if (made.status !== 0) process.exit(made.status ?? 1)
