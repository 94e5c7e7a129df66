/**
 * What ships is what is tested: the edits of patches/ are in the installed files the suites load, and
 * the start bundle holds those very files (its build records their SHA-256 in
 * dist/bundle/patched-inputs.json). Also the patcher's contract: each edit anchored on the whole text
 * it replaces, a second run changing nothing, an unknown text failing with the package, version and
 * file named.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { patchText, patchedFiles, sha256, verifyPatches } from '../../../../scripts/dependency-patches.mjs'
import { originalText } from '../../../helpers/original-modules.js'
import { REPO_ROOT } from '../../../helpers/repo-root.js'

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>
  scripts: Record<string, string>
  files: string[]
}

describe('dependency patches', () => {
  it('are written for the versions package.json pins, and npm install applies them', () => {
    for (const { patch } of patchedFiles()) expect(pkg.dependencies[patch.name], patch.name).toBe(patch.version)
    expect(pkg.scripts.postinstall).toBe('node scripts/dependency-patches.mjs')
    expect(pkg.files).toEqual(expect.arrayContaining(['patches', 'scripts/dependency-patches.mjs']))
  })

  it('are applied to the files the suites load', async () => {
    const files = verifyPatches()
    for (const name of new Set(files.map((f) => f.patch.name))) {
      if (name === '@noble/hashes') continue // loaded by @ethereumjs/util, checked below
      const entry = fileURLToPath(import.meta.resolve(name))
      const target = files.find((f) => f.patch.name === name)!
      expect(entry.startsWith(target.path.slice(0, target.path.length - target.file.length)), `${name} loads from ${entry}`).toBe(true)
    }
    // @ethereumjs/util's bytesToUnprefixedHex is the patched @noble/hashes bytesToHex
    const util = await import('@ethereumjs/util')
    const noble = files.find((f) => f.patch.name === '@noble/hashes')!
    const { bytesToHex } = (await import(join(dirname(noble.path), noble.file))) as { bytesToHex: (b: Uint8Array) => string }
    expect(bytesToHex.toString()).toContain('hexSlice')
    expect(util.bytesToUnprefixedHex(Uint8Array.of(1, 171))).toBe('01ab')
  })

  it('are what the start bundle holds', () => {
    const inputs = join(REPO_ROOT, 'dist/bundle/patched-inputs.json')
    expect(existsSync(inputs), 'dist/bundle/patched-inputs.json is missing: run `npm run build`').toBe(true)
    const bundled = JSON.parse(readFileSync(inputs, 'utf8')) as Record<string, string>
    const installed = Object.fromEntries(verifyPatches().map((f) => [relative(REPO_ROOT, f.path), f.sha256]))
    expect(bundled, 'the bundle was built from other files than the installed ones: run `npm run build`').toEqual(installed)
    const bundle = readFileSync(join(REPO_ROOT, 'dist/bundle/start.cjs'), 'utf8')
    for (const name of ['runStepSync', 'measurePlan', 'hexDigit']) expect(bundle).toContain(name)
  })

  it('replace the whole original text once, and leave a patched text as it is', () => {
    for (const target of patchedFiles()) {
      const patched = readFileSync(target.path, 'utf8')
      const original = originalText(target, patched)
      expect(original, target.path).not.toBe(patched)
      expect(patchText(target, original), target.path).toBe(patched)
      expect(patchText(target, patched), target.path).toBe(patched)
      for (const edit of target.edits) if (!edit.to.includes(edit.from)) expect(original.split(edit.from).length - 1, edit.why).toBe(1)
    }
  })

  it('fail naming the package, version and file when a text is neither the original nor the patched one', () => {
    const target = patchedFiles().find((t) => t.file === 'dist/esm/memory.js')!
    const changed = readFileSync(target.path, 'utf8').replace('new Uint8Array(1024)', 'new Uint8Array(4096)')
    expect(() => patchText(target, changed)).toThrow(
      /@ethereumjs\/evm 10\.1\.3, dist\/esm\/memory\.js .*neither the original text nor its replacement/,
    )
    const twice = `${originalText(target, readFileSync(target.path, 'utf8'))}\nfunction grow() {\n        this._store = new Uint8Array(CONTAINER_SIZE);\n}`
    expect(() => patchText(target, twice)).toThrow(/more than once/)
  })

  it('hash a file as the build does', () => {
    const [first] = verifyPatches()
    expect(first!.sha256).toBe(sha256(readFileSync(first!.path, 'utf8')))
  })
})
