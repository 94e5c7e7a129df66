/**
 * `--compare`: the figures of issue 12's table, read from each target's lines, their ratio, and the
 * table printed to stderr (Markdown, so a run pastes into the README and docs/performance.md as it is).
 */
import { STARTUP_SPAWNS } from './node-process.js'
import type { BenchOptions } from './options.js'

/** One emitted JSON line, without its `target`. */
export type Line = { workload: string } & Record<string, unknown>

/** One row of the table: which line holds the figure, and which way is better. */
export interface Metric {
  /** Key of the figure in the `compare` line. */
  key: string
  /** Row title, with the run's parameters. */
  title: (options: BenchOptions) => string
  /** The `workload` of the line that holds the figure. */
  line: string
  /** The figure in that line. */
  read: (line: Line) => unknown
  /** Throughputs are better higher; times and memory lower. */
  better: 'higher' | 'lower'
}

const batchTitle =
  (what: string) =>
  (o: BenchOptions): string =>
    `committed ${what}/s (${o.txs.toLocaleString('en-US')} from ${o.senders} senders, c=${o.sendConcurrency})`

/** The rows of issue 12's table, in its order, and the floor under nodectl's start-up. */
export const COMPARE_METRICS: readonly Metric[] = [
  { key: 'erc20TxPerSec', title: batchTitle('ERC-20 transfers'), line: 'erc20_transfers', read: (l) => l.txPerSec, better: 'higher' },
  { key: 'valueTxPerSec', title: batchTitle('value transfers'), line: 'value_transfers', read: (l) => l.txPerSec, better: 'higher' },
  {
    key: 'erc20SendsPerSec',
    title: () => 'eth_sendRawTransaction accepted/s while blocks execute (the ERC-20 batch)',
    line: 'erc20_transfers',
    read: (l) => l.sendsPerSec,
    better: 'higher',
  },
  {
    key: 'erc20SendP99Ms',
    title: () => 'eth_sendRawTransaction round trip while blocks execute, p99 (ms)',
    line: 'erc20_transfers',
    read: (l) => l.sendP99Ms,
    better: 'lower',
  },
  {
    key: 'callsPerSec',
    title: (o) => `eth_call balanceOf(distinct holder)/s, c=${o.concurrency}`,
    line: 'eth_call',
    read: (l) => l.reqPerSec,
    better: 'higher',
  },
  {
    key: 'startupMs',
    title: () => `spawn → eth_call executed (ms, median of ${STARTUP_SPAWNS} spawns)`,
    line: 'startup',
    read: (l) => l.msToEthCall,
    better: 'lower',
  },
  {
    key: 'nodeJsMs',
    title: () => `of which Node.js alone: spawn → \`node -e 0\` exited (ms, median of ${STARTUP_SPAWNS})`,
    line: 'startup',
    read: (l) => l.nodeJsMs,
    better: 'lower',
  },
  { key: 'rssMb', title: () => 'RSS 5 s after the workloads (MB)', line: 'memory', read: (l) => l.rssMb, better: 'lower' },
  {
    key: 'getLogsMs',
    title: (o) => `eth_getLogs address+topic, ${(o.txs + o.senders).toLocaleString('en-US')} logs, p50 (ms)`,
    line: 'eth_getLogs',
    read: (l) => l.p50Ms,
    better: 'lower',
  },
  {
    key: 'readsPerSec',
    title: (o) => `simple reads (blockNumber/getBalance/chainId)/s, c=${o.concurrency}`,
    line: 'reads',
    read: (l) => l.reqPerSec,
    better: 'higher',
  },
  {
    key: 'txToHeadMs',
    title: () => 'tx sent → newHeads received, p50 (ms)',
    line: 'ws-heads',
    read: (l) => (l.txToHead as { p50Ms?: unknown } | undefined)?.p50Ms,
    better: 'lower',
  },
]

/** One metric of both targets. */
export interface Comparison {
  metric: Metric
  /** The other node's figure and ours; undefined when its line is missing or has none. */
  theirs: number | undefined
  ours: number | undefined
  /**
   * How many times better ours is (> 1: ours is better): ours/theirs for a throughput, theirs/ours
   * for a time or memory; undefined without both figures.
   */
  ratio: number | undefined
}

function figureOf(metric: Metric, lines: readonly Line[]): number | undefined {
  const line = lines.find((l) => l.workload === metric.line)
  const value = line === undefined ? undefined : metric.read(line)
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** `ours` over `theirs` for a throughput, the inverse for a time or memory, to 3 significant digits. */
export function ratioOf(better: Metric['better'], theirs: number | undefined, ours: number | undefined): number | undefined {
  if (theirs === undefined || ours === undefined || theirs <= 0 || ours <= 0) return undefined
  return Number((better === 'higher' ? ours / theirs : theirs / ours).toPrecision(3))
}

/** Every metric of `metrics` from the two targets' lines. */
export function compareLines(metrics: readonly Metric[], theirs: readonly Line[], ours: readonly Line[]): Comparison[] {
  return metrics.map((metric) => {
    const a = figureOf(metric, theirs)
    const b = figureOf(metric, ours)
    return { metric, theirs: a, ours: b, ratio: ratioOf(metric.better, a, b) }
  })
}

/** Which figure the ratio divides by which, e.g. "nodectl/anvil". */
export function ratioDirection(better: Metric['better'], theirs: string, ours: string): string {
  return better === 'higher' ? `${ours}/${theirs}` : `${theirs}/${ours}`
}

/** The body of the `compare` line: per metric both figures, the ratio and its direction. */
export function compareRecord(rows: readonly Comparison[], theirs: string, ours: string): Record<string, unknown> {
  const out: Record<string, unknown> = { against: theirs }
  for (const { metric, theirs: a, ours: b, ratio } of rows) {
    out[metric.key] = { [theirs]: a ?? null, [ours]: b ?? null, ratio: ratio ?? null, ratioOf: ratioDirection(metric.better, theirs, ours) }
  }
  return out
}

/** A figure as the table shows it: thousands separated, one decimal below 100; "–" when missing. */
export function formatFigure(x: number | undefined): string {
  if (x === undefined) return '–'
  return x.toLocaleString('en-US', { maximumFractionDigits: Math.abs(x) >= 100 ? 0 : 1 })
}

/** The comparison as an aligned Markdown table: workload, both figures, the ratio with its direction, which is better. */
export function formatCompareTable(rows: readonly Comparison[], options: BenchOptions, theirs: string, ours: string): string {
  const table = [
    ['workload', theirs, ours, 'ratio', 'better'],
    ...rows.map(({ metric, theirs: a, ours: b, ratio }) => [
      metric.title(options),
      formatFigure(a),
      formatFigure(b),
      ratio === undefined ? '–' : `${ratioDirection(metric.better, theirs, ours)} ×${ratio}`,
      ratio === undefined ? '–' : ratio > 1 ? ours : ratio < 1 ? theirs : 'even',
    ]),
  ]
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)))
  // figures right-aligned, text left-aligned
  const numeric = (c: number): boolean => c === 1 || c === 2
  const pad = (cell: string, c: number): string => (numeric(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))
  const render = (r: string[]): string => `| ${r.map(pad).join(' | ')} |`
  const rule = `|${widths.map((w, c) => (numeric(c) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`
  return [render(table[0]!), rule, ...table.slice(1).map(render)].join('\n') + '\n'
}
