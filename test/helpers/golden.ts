/**
 * Golden files for wire shapes (STYLE.md rule 9, geth `testdata/`), under test/fixtures/golden/<name>.json.
 * Two kinds: `readGolden` normalises a JSON-RPC result (values that differ from run to run become typed
 * placeholders) and renders it indented, so field names, their order and every deterministic value
 * count; `readGoldenBytes` keeps a wire string byte for byte (CometBFT's compact JSON, compared exactly).
 * Running a test with `UPDATE_GOLDEN=1` (e.g. `UPDATE_GOLDEN=1 npx vitest run test/e2e/golden-shapes.test.ts`)
 * rewrites the files it reads; never edit them by hand.
 */
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

/** Where the golden files live. */
export const GOLDEN_DIR = resolve(import.meta.dirname, '../fixtures/golden')

type Rule = (value: unknown, parent: Record<string, unknown>) => unknown

const HASH32 = '<hash32>'
const QUANTITY = '<quantity>'
const keep: Rule = (value) => value
const always =
  (placeholder: string): Rule =>
  (value) =>
    value === null ? null : placeholder
/** A dynamic-fee transaction's price once mined is min(tip + base fee, fee cap): the base fee moves with time. */
const priceOfDynamicFee: Rule = (value, parent) => (parent.type === '0x2' && parent.blockHash !== null ? QUANTITY : value)

/**
 * Per field name: what varies between runs. Block position (number, hashes, time, base fee) and the
 * validator (miner) vary; signatures and transaction hashes follow the compiled bytecode. Everything
 * else (from, to, value, gas, nonce, type, chainId, status, gas used, indexes, topics, data, removed,
 * which fields exist) is compared literally.
 */
const RULES: Record<string, Rule> = {
  hash: always(HASH32),
  blockHash: always(HASH32),
  parentHash: always(HASH32),
  transactionHash: always(HASH32),
  stateRoot: always(HASH32),
  transactionsRoot: always(HASH32),
  receiptsRoot: always(HASH32),
  logsBloom: always('<bloom>'),
  number: always(QUANTITY),
  blockNumber: always(QUANTITY),
  timestamp: always(QUANTITY),
  blockTimestamp: always(QUANTITY),
  size: always(QUANTITY),
  baseFeePerGas: always(QUANTITY),
  miner: always('<address>'),
  v: always(QUANTITY),
  r: always(QUANTITY),
  s: always(QUANTITY),
  yParity: always(QUANTITY),
  gasPrice: priceOfDynamicFee,
  effectiveGasPrice: priceOfDynamicFee,
  // Contract-creation code is the compiler's output: its bytes are not the shape under test.
  input: (value, parent) => (parent.to === null ? '<data>' : value),
}

/** Replaces run-dependent values by placeholders, keeping key order. Arrays of hashes become placeholders too. */
export function normalise(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    if (key === 'transactions') return value.map((item) => (typeof item === 'string' ? HASH32 : normalise(item)))
    return value.map((item) => normalise(item))
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(obj)) out[k] = v !== null && typeof v === 'object' ? normalise(v, k) : (RULES[k] ?? keep)(v, obj)
    return out
  }
  return value
}

/** The golden text of a value: normalised, two-space indented, one trailing newline. */
export function renderGolden(value: unknown): string {
  return JSON.stringify(normalise(value), null, 2) + '\n'
}

/**
 * The committed text of `name` and the text `value` renders to. With UPDATE_GOLDEN=1 the file is
 * (re)written first, so both are equal.
 */
export async function readGolden(name: string, value: unknown): Promise<{ expected: string; actual: string }> {
  return readGoldenBytes(name, renderGolden(value))
}

/**
 * The committed text of `name`, as is (no normalisation, no added newline), and `actual`. With
 * UPDATE_GOLDEN=1 the file is (re)written with `actual` first, so both are equal.
 */
export async function readGoldenBytes(name: string, actual: string): Promise<{ expected: string; actual: string }> {
  const path = resolve(GOLDEN_DIR, `${name}.json`)
  if (process.env.UPDATE_GOLDEN === '1') {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, actual)
  }
  if (!existsSync(path)) throw new Error(`missing golden file ${path}: run with UPDATE_GOLDEN=1`)
  return { expected: await readFile(path, 'utf8'), actual }
}
