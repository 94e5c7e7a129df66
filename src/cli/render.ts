/**
 * Human rendering of client results with cli-table3 (the `--json` output is the typed result itself),
 * and the conversion tables need: hex QUANTITY to decimal (wei to ether is primitives/ether.ts).
 */
import Table from 'cli-table3'

/**
 * True when `stream` is a terminal. Commands whose answer is one id, hash or address print it alone on
 * a plain line otherwise, so `id=$(nodectl filter new-blocks)` captures it; a person at a terminal
 * gets the table.
 */
export function isTerminal(stream: { isTTY?: boolean } = process.stdout): boolean {
  return stream.isTTY === true
}

/** A hex QUANTITY (`0x1a`) as a decimal string; other values unchanged. */
export function decimalOf(value: unknown): string {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value) && value.length <= 66) return BigInt(value).toString()
  return value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)
}

/** A cell value: objects and arrays as compact JSON, the rest as text. */
export function cellOf(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** What a command whose answer is one value prints: the value alone into a pipe (as cast), `onTerminal()` on a terminal. */
export function answerOr(answer: string, onTerminal: () => string): string {
  return isTerminal() ? onTerminal() : answer
}

/**
 * A two-column table, one row per entry, on a terminal; into a pipe, `key<TAB>value` lines
 * (`nodectl query receipt $tx | grep status | cut -f2`).
 */
export function keyValueTable(rows: [string, unknown][]): string {
  if (!isTerminal()) return rows.map(([key, value]) => `${key}\t${cellOf(value)}`).join('\n')
  const table = new Table({ style: { head: [], border: [] }, wordWrap: true })
  for (const [key, value] of rows) table.push({ [key]: cellOf(value) })
  return table.toString()
}

/** A table with a header row on a terminal; into a pipe, one tab-separated line per row, no header. */
export function listTable(head: string[], rows: unknown[][]): string {
  if (!isTerminal()) return rows.map((row) => row.map(cellOf).join('\t')).join('\n')
  const table = new Table({ head, style: { head: [], border: [] } })
  for (const row of rows) table.push(row.map(cellOf))
  return table.toString()
}
