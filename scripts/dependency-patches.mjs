/**
 * Applies the edits of patches/ to the installed packages (the project's `postinstall`: `node
 * scripts/dependency-patches.mjs`) and checks that they are there (the start bundle's build, the tests).
 *
 * The speed-ups of patches/ change library code. They were once applied only while bundling, so the
 * suites and the benchmark ran the library's own text and users ran another; running the suites on the
 * bundle instead would have tested one artifact but left every in-process test, the benchmark and a
 * plain `node dist/…` run on the other. Editing the installed files once makes every way of loading
 * them (vitest, the compiled sources, the bundle) run the same code.
 *
 * Each package is found as Node.js finds it from this project (walking up through node_modules, so
 * an installed nodectl's own or hoisted dependencies are found too) and must have the version its
 * patch was written for, which package.json must pin. Each edit is anchored on the whole text it replaces: when the replacement is
 * there the edit is skipped (running the install twice changes nothing), when the original is there
 * exactly once it is replaced, and otherwise the install fails naming the package, version and file.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { PATCHES } from '../patches/index.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The folder of package `name` as Node.js resolves it from `from` (node_modules of `from` and its parents). */
function findPackage(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (basename(dir) !== 'node_modules' && existsSync(join(candidate, 'package.json'))) return candidate
    if (dirname(dir) === dir) throw new Error(`nodectl dependency patches: ${name} is not installed (looked up from ${from})`)
  }
}

/** Each patched file: its patch, its path, and the package's folder and version (checked against the patch's). */
export function patchedFiles(root = ROOT) {
  const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const dirs = new Map()
  const files = []
  for (const patch of PATCHES) {
    if (dependencies[patch.name] !== patch.version) {
      throw new Error(`nodectl dependency patches: package.json pins ${patch.name} ${dependencies[patch.name]}, patches/${patch.name}.mjs is for ${patch.version}`)
    }
    const dir = findPackage(patch.name, patch.resolveFrom ? dirs.get(patch.resolveFrom) : root)
    dirs.set(patch.name, dir)
    const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    if (version !== patch.version) {
      throw new Error(
        `nodectl dependency patches: ${patch.name} ${version} is installed (${dir}) but the patches are for ${patch.version}; install the pinned version, or re-measure and rewrite patches/${patch.name}.mjs`,
      )
    }
    for (const [file, edits] of Object.entries(patch.files)) files.push({ patch, file, path: join(dir, file), edits })
  }
  return files
}

/** The text of `target` with every edit applied; throws when an edit finds neither its original nor its replacement. */
export function patchText(target, text) {
  let patched = text
  target.edits.forEach((edit, i) => {
    if (patched.includes(edit.to)) return
    const at = patched.indexOf(edit.from)
    if (at < 0 || patched.indexOf(edit.from, at + 1) >= 0) {
      const found = at < 0 ? 'neither the original text nor its replacement is there' : 'the original text is there more than once'
      throw new Error(
        `nodectl dependency patches: ${target.patch.name} ${target.patch.version}, ${target.file} (${target.path}), edit ${i + 1} (${edit.why.slice(0, 60)}…): ${found}`,
      )
    }
    patched = patched.slice(0, at) + edit.to + patched.slice(at + edit.from.length)
  })
  return patched
}

/** Throws unless `text` (the contents of `target`) has every edit of its patch. */
export function checkPatched(target, text) {
  if (patchText(target, text) !== text) {
    throw new Error(
      `nodectl dependency patches: ${target.patch.name} ${target.patch.version}, ${target.file} (${target.path}) is not patched; run \`npm run patch-dependencies\` (npm install does)`,
    )
  }
}

/** Applies every edit not yet applied; answers the files written. */
export function applyPatches(root = ROOT) {
  const written = []
  for (const target of patchedFiles(root)) {
    const text = readFileSync(target.path, 'utf8')
    const patched = patchText(target, text)
    if (patched === text) continue
    writeFileSync(target.path, patched)
    written.push(target.path)
  }
  return written
}

/** Throws unless every patched file has all its edits; answers the files with their SHA-256. */
export function verifyPatches(root = ROOT) {
  return patchedFiles(root).map((target) => {
    const text = readFileSync(target.path, 'utf8')
    checkPatched(target, text)
    return { ...target, sha256: sha256(text) }
  })
}

export function sha256(text) {
  return createHash('sha256').update(text).digest('hex')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = applyPatches()
  if (written.length > 0) console.log(`nodectl: patched ${written.length} installed files (patches/)`)
}
