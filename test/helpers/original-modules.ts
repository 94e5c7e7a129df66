/**
 * The installed packages' own code before nodectl's patches (patches/), for tests that compare a
 * patched module with the library's: the edits of a file undone, the text written under
 * node_modules/.cache and imported as a module of its own, its relative imports pointing at the
 * installed package's files (or at other originals, through `specifiers`).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { patchedFiles, type PatchedFile } from '../../scripts/dependency-patches.mjs'
import { REPO_ROOT } from './repo-root.js'

/** `text` (a patched file) with its edits undone, last first. */
export function originalText(target: PatchedFile, text: string): string {
  let original = text
  for (const edit of [...target.edits].reverse()) {
    const at = original.indexOf(edit.to)
    if (at < 0) throw new Error(`${target.path}: not patched (${edit.why.slice(0, 60)}…)`)
    original = original.slice(0, at) + edit.from + original.slice(at + edit.to.length)
  }
  return original
}

/** The patched file `file` of package `name`. */
export function patchedFile(name: string, file: string): PatchedFile {
  const target = patchedFiles().find((t) => t.patch.name === name && t.file === file)
  if (!target) throw new Error(`patches/ does not edit ${name} ${file}`)
  return target
}

/**
 * Imports a fresh copy of the original text of `file` of package `name`; an import of a specifier
 * named in `specifiers` loads the URL given instead. Answers the module and its URL.
 */
export async function importOriginal<T>(
  name: string,
  file: string,
  specifiers: Record<string, string> = {},
): Promise<{ module: T; url: string }> {
  const target = patchedFile(name, file)
  const from = pathToFileURL(target.path)
  const text = originalText(target, readFileSync(target.path, 'utf8')).replace(
    /(\bfrom\s*|\bimport\s*)(["'])([^"']+)\2/g,
    (whole, keyword: string, quote: string, specifier: string) => {
      const to = specifiers[specifier] ?? (specifier.startsWith('.') ? new URL(specifier, from).href : undefined)
      return to === undefined ? whole : `${keyword}${quote}${to}${quote}`
    },
  )
  const path = join(REPO_ROOT, 'node_modules/.cache/nodectl-test', `original-${process.pid}`, name, file.replace(/\.js$/, '.mjs'))
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  const url = pathToFileURL(path).href
  return { module: (await import(url)) as T, url }
}

/** Removes the copies this process wrote. */
export function removeOriginals(): void {
  rmSync(join(REPO_ROOT, 'node_modules/.cache/nodectl-test', `original-${process.pid}`), { recursive: true, force: true })
}
