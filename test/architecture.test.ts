/**
 * The layering rule of docs/architecture.md: imports only go downward (L8 → L0), never sideways above L1, and `crypto/` is the only
 * importer of curve and hash libraries. No two source files import each other, directly or through others,
 * not even by type. What ships is `src/` alone: it never imports from outside
 * `src/` (the benchmark in `test/bench/` and the test helpers may import `src/`, never the reverse)
 * nor a dev dependency. Checked by reading the import lines of every source file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, dirname, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '..')
const SRC = resolve(ROOT, 'src')

const LAYER: Record<string, number> = {
  primitives: 0,
  crypto: 0,
  utils: 0,
  config: 1,
  db: 1,
  keystore: 1,
  rpc: 1,
  abci: 2,
  comet: 3,
  evm: 4,
  indexer: 4,
  consensus: 4,
  txpool: 5,
  p2p: 5,
  api: 6,
  node: 7,
  commands: 8,
  cli: 8,
  hooks: 8,
}

const CRYPTO_LIBS = [/^@noble\//, /^ethereum-cryptography/, /^secp256k1$/, /^keccak$/, /^@scure\//]

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** Module specifiers imported by a file; `typeOnly` for `import type` (erased at run time). */
function importsOf(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8')
  const statements = [...text.matchAll(/^\s*(import|export)\s(type\s)?[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => ({
    spec: m[3]!,
    typeOnly: m[2] !== undefined,
  }))
  const dynamic = [...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => ({ spec: m[1]!, typeOnly: false }))
  return [...statements, ...dynamic]
}

const folderOf = (file: string): string => relative(SRC, file).split('/')[0]!

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath or `node:` builtins. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('node:')) return undefined
  const parts = spec.split('/')
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** The source file a relative specifier names (`./x.js` is `./x.ts`, a folder is its `index.ts`). */
function resolveSource(from: string, spec: string): string {
  const path = resolve(dirname(from), spec).replace(/\.js$/, '.ts')
  return existsSync(path) ? path : join(path.replace(/\.ts$/, ''), 'index.ts')
}

/** The import circles among `files`: strongly connected groups of more than one file (Tarjan's algorithm). */
function importCycles(files: readonly string[]): string[][] {
  const edges = new Map(
    files.map((file) => [file, importsOf(file).flatMap(({ spec }) => (spec.startsWith('.') ? [resolveSource(file, spec)] : []))]),
  )
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const group: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.push(member)
    } while (member !== file)
    if (group.length > 1) cycles.push(group)
  }
  for (const file of files) if (!index.has(file)) visit(file)
  return cycles
}

describe('architecture', () => {
  const files = sourceFiles(SRC)

  it('every source folder has a layer', () => {
    for (const file of files) {
      const folder = folderOf(file)
      if (folder.endsWith('.ts')) continue
      expect(LAYER[folder], `${folder}/ has no layer in docs/architecture.md`).toBeDefined()
    }
  })

  it('imports only go downward', () => {
    const violations: string[] = []
    for (const file of files) {
      const from = folderOf(file)
      for (const { spec } of importsOf(file)) {
        if (!spec.startsWith('.')) continue
        const target = folderOf(resolve(dirname(file), spec))
        if (target === from || LAYER[target] === undefined || LAYER[from] === undefined) continue
        const upward = LAYER[target]! > LAYER[from]!
        // Within a layer: L0 and L1 folders may use each other, and commands/ and hooks/ use the
        // helpers of cli/. Elsewhere a folder never imports a sibling of its layer, not even a type:
        // the consensus engine and the EVM application meet only in abci/.
        const sideways =
          LAYER[target] === LAYER[from] && LAYER[from]! > 1 && !((from === 'commands' || from === 'hooks') && target === 'cli')
        if (upward || sideways)
          violations.push(`${relative(SRC, file)} imports ${spec} (${from} L${LAYER[from]} → ${target} L${LAYER[target]})`)
      }
    }
    expect(violations).toEqual([])
  })

  it('no import circles, type imports included', () => {
    const names = (group: string[]): string =>
      group
        .map((file) => relative(SRC, file))
        .sort()
        .join(' ↔ ')
    expect(importCycles(files).map(names)).toEqual([])
  })

  it('only crypto/ imports curve and hash libraries', () => {
    const violations: string[] = []
    for (const file of files) {
      if (folderOf(file) === 'crypto') continue
      for (const { spec } of importsOf(file))
        if (CRYPTO_LIBS.some((re) => re.test(spec))) violations.push(`${relative(SRC, file)} imports ${spec}`)
    }
    expect(violations).toEqual([])
  })

  it('src/ imports nothing outside src/ (not test/bench, not test/helpers)', () => {
    const violations: string[] = []
    for (const file of files) {
      for (const { spec } of importsOf(file)) {
        if (!spec.startsWith('.')) continue
        const target = relative(SRC, resolve(dirname(file), spec))
        if (target.startsWith('..'))
          violations.push(`${relative(SRC, file)} imports ${spec} (${relative(ROOT, resolve(dirname(file), spec))})`)
      }
    }
    expect(violations).toEqual([])
  })

  it('src/ imports no dev dependency (ethers, solc, viem… are for tests and the benchmark)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> }
    const dev = new Set(Object.keys(pkg.devDependencies ?? {}))
    const violations: string[] = []
    for (const file of files) {
      for (const { spec, typeOnly } of importsOf(file)) {
        const name = packageOf(spec)
        if (name !== undefined && dev.has(name) && !typeOnly) violations.push(`${relative(SRC, file)} imports ${spec}`)
      }
    }
    expect(violations).toEqual([])
  })
})
