/**
 * Human rendering of client results with cli-table3 (the `--json` output is the typed result itself),
 * and the conversions tables need: hex QUANTITY to decimal, wei to ether.
 */
import Table from 'cli-table3'

/** 1 ether = 10^18 wei. */
const WEI_PER_ETHER = 10n ** 18n

/** A hex QUANTITY (`0x1a`) as a decimal string; other values unchanged. */
export function decimalOf(value: unknown): string {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value) && value.length <= 66) return BigInt(value).toString()
  return value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)
}

/** Wei (bigint) as an ether amount with up to 18 decimals, trailing zeros removed. */
export function formatEther(wei: bigint): string {
  const sign = wei < 0n ? '-' : ''
  const abs = wei < 0n ? -wei : wei
  const fraction = (abs % WEI_PER_ETHER).toString().padStart(18, '0').replace(/0+$/, '')
  return `${sign}${abs / WEI_PER_ETHER}${fraction ? `.${fraction}` : ''}`
}

/** A cell value: objects and arrays as compact JSON, the rest as text. */
export function cellOf(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** A two-column table, one row per entry. */
export function keyValueTable(rows: [string, unknown][]): string {
  const table = new Table({ style: { head: [], border: [] }, wordWrap: true })
  for (const [key, value] of rows) table.push({ [key]: cellOf(value) })
  return table.toString()
}

/** A table with a header row. */
export function listTable(head: string[], rows: unknown[][]): string {
  const table = new Table({ head, style: { head: [], border: [] } })
  for (const row of rows) table.push(row.map(cellOf))
  return table.toString()
}
