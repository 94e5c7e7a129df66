/**
 * Base and flags of the `nodectl trace` commands (debug_traceTransaction, debug_traceBlockBy*,
 * debug_traceCall): `--tracer` (callTracer by default; `struct` for geth's struct logger; any other
 * tracer name the node serves; a FILE.js holding a JavaScript tracer program, or an inline program),
 * `--tracer-config` (a JSON object), `--timeout` (a Go duration) and `--limit` (struct logger steps).
 * The trace config sent is geth's TraceConfig; trace-render.ts shows the results.
 */
import { readFile } from 'node:fs/promises'
import { Flags } from '@oclif/core'
import { parseDuration } from '../config/duration.js'
import { bytesToHex } from '../primitives/hex.js'
import { DEFAULT_CALL_TIMEOUT_MS, HttpRpcClient, JsonRpcClientError } from '../rpc/client/index.js'
import { resolveAddress } from './address-names.js'
import { RpcCommand } from './rpc-command.js'
import { EXIT_USAGE } from './failure.js'
import type { TraceView } from './trace-render.js'
import { parseData, parseValue } from './tx-values.js'

/** `--tracer` when not given. */
export const DEFAULT_TRACER = 'callTracer'
/** `--tracer` value that selects geth's default struct logger. */
export const STRUCT_TRACER = 'struct'
/** The tracers the help text names (the node serves more: noopTracer, muxTracer, the named JS tracers). */
export const TRACER_CHOICES = ['callTracer', 'prestateTracer', '4byteTracer', 'flatCallTracer', STRUCT_TRACER] as const

/** Time the HTTP call is given beyond the trace's own timeout (queueing behind other traces, the reply). */
const CALL_MARGIN_MS = 30_000
/** A block trace runs each transaction under its own timeout: the call gets at least this long. */
const BLOCK_CALL_TIMEOUT_MS = 10 * 60_000
/** The longest timer Node.js keeps (a longer one fires at once). */
const MAX_CALL_TIMEOUT_MS = 2 ** 31 - 1

/** The flags every trace command takes. */
export const traceFlags = {
  tracer: Flags.string({
    summary: `Tracer: ${TRACER_CHOICES.join(', ')}, another tracer the node serves (noopTracer, muxTracer, opcountTracer…), or FILE.js holding a JavaScript tracer program [default: ${DEFAULT_TRACER}].`,
    helpGroup: 'TRACER',
  }),
  opcodes: Flags.boolean({ summary: `Short for --tracer ${STRUCT_TRACER}: the opcode table.`, helpGroup: 'TRACER', exclusive: ['tracer'] }),
  'tracer-config': Flags.string({
    summary: 'tracerConfig as a JSON object, e.g. \'{"withLog":true}\' for callTracer or \'{"diffMode":true}\' for prestateTracer.',
    helpGroup: 'TRACER',
  }),
  timeout: Flags.string({ summary: "Trace timeout as a Go duration (500ms, 10s, 1m) [default: the node's, 5s].", helpGroup: 'TRACER' }),
  limit: Flags.integer({
    summary: `Struct logger only: stop recording after N opcodes (--tracer ${STRUCT_TRACER}).`,
    min: 1,
    helpGroup: 'TRACER',
  }),
}

/** The parsed trace flags. */
export interface TraceFlags {
  tracer?: string | undefined
  opcodes?: boolean | undefined
  'tracer-config'?: string | undefined
  timeout?: string | undefined
  limit?: number | undefined
}

/** What the flags ask for: geth's TraceConfig, how to show the result, and the timeout. */
export interface TraceRequest {
  config: Record<string, unknown>
  view: TraceView
  /** The trace timeout in ms when `--timeout` was given. */
  timeoutMs: number | undefined
  /** `--limit`, for the table's summary. */
  limit: number | undefined
}

/** A flag value that cannot be used: one line, exit 2. */
export class TraceUsageError extends Error {}

/** Whether `--tracer` names a file of JavaScript (`*.js`), rather than a tracer. */
function isProgramFile(tracer: string): boolean {
  return /\.(c|m)?js$/i.test(tracer)
}

/** The program text of a tracer file: a trailing `;` (a statement-style file) is dropped. */
export function programOf(source: string): string {
  return source.trim().replace(/;\s*$/, '')
}

async function readProgram(path: string): Promise<string> {
  let source: string
  try {
    source = await readFile(path, 'utf8')
  } catch (err) {
    throw new TraceUsageError(`cannot read tracer file "${path}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  const program = programOf(source)
  if (program === '') throw new TraceUsageError(`tracer file "${path}" is empty`)
  return program
}

function parseTracerConfig(input: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(input)
  } catch (err) {
    throw new TraceUsageError(`invalid --tracer-config: ${(err as Error).message}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TraceUsageError('invalid --tracer-config: want a JSON object, e.g. \'{"onlyTopCall":true}\'')
  return value as Record<string, unknown>
}

/**
 * Builds geth's TraceConfig from the flags. `json` (the `--json` output) keeps the struct logger's stack
 * and storage; the opcode table does not show them, so they are not asked for.
 */
export async function buildTraceRequest(flags: TraceFlags, json: boolean): Promise<TraceRequest> {
  const tracer = flags.opcodes ? STRUCT_TRACER : flags.tracer?.trim() || DEFAULT_TRACER
  const config: Record<string, unknown> = {}
  let view: TraceView = 'json'
  if (tracer === STRUCT_TRACER || tracer === 'structLogger') {
    view = 'opcodes'
    if (flags.limit !== undefined) config.limit = flags.limit
    if (!json) Object.assign(config, { disableStack: true, disableStorage: true })
  } else {
    if (flags.limit !== undefined) throw new TraceUsageError(`--limit applies to the struct logger only (--tracer ${STRUCT_TRACER})`)
    if (isProgramFile(tracer)) config.tracer = await readProgram(tracer)
    else config.tracer = tracer
    if (tracer === 'callTracer') view = 'tree'
  }
  if (flags['tracer-config'] !== undefined) config.tracerConfig = parseTracerConfig(flags['tracer-config'])
  let timeoutMs: number | undefined
  if (flags.timeout !== undefined) {
    try {
      timeoutMs = parseDuration(flags.timeout)
    } catch (err) {
      throw new TraceUsageError(`invalid --timeout "${flags.timeout}": ${(err as Error).message}`)
    }
    if (timeoutMs <= 0) throw new TraceUsageError(`invalid --timeout "${flags.timeout}": want a positive duration such as 10s`)
    config.timeout = flags.timeout
  }
  return { config, view, timeoutMs, limit: flags.limit }
}

/** `trace call`'s flags as debug_traceCall's transaction arguments (absent flags stay absent: the node's defaults). */
export async function callArgsOf(flags: {
  home?: string | undefined
  from?: string | undefined
  to?: string | undefined
  data?: string | undefined
  value?: string | undefined
  gas?: number | undefined
}): Promise<Record<string, string>> {
  const args: Record<string, string> = {}
  if (flags.from !== undefined) args.from = await resolveAddress(flags.from, 'address', flags.home)
  if (flags.to !== undefined) args.to = await resolveAddress(flags.to, 'address', flags.home)
  if (flags.data !== undefined) args.data = bytesToHex(parseData(flags.data))
  const value = flags.value === undefined ? 0n : parseValue(flags.value)
  if (value !== 0n) args.value = `0x${value.toString(16)}`
  if (flags.gas !== undefined) args.gas = `0x${flags.gas.toString(16)}`
  return args
}

/** A command of the `trace` topic: RpcCommand's connection flags and errors, plus the trace flags. */
export abstract class TraceCommand extends RpcCommand {
  /** The trace request of the flags; a bad value is one line with exit 2. */
  protected async traceRequest(flags: TraceFlags): Promise<TraceRequest> {
    try {
      return await buildTraceRequest(flags, this.jsonEnabled())
    } catch (err) {
      if (err instanceof TraceUsageError) this.error(err.message, { exit: EXIT_USAGE })
      throw err
    }
  }

  /** An HTTP client whose call timeout outlasts the trace's (a whole block's traces with `block`). */
  protected async traceClient(flags: { node?: string; home?: string }, request: TraceRequest, block = false): Promise<HttpRpcClient> {
    const endpoints = await this.endpoints(flags, 'http')
    const traceMs = Math.ceil(request.timeoutMs ?? 0)
    const timeoutMs = Math.min(
      MAX_CALL_TIMEOUT_MS,
      Math.max(DEFAULT_CALL_TIMEOUT_MS, traceMs + CALL_MARGIN_MS, block ? BLOCK_CALL_TIMEOUT_MS : 0),
    )
    return new HttpRpcClient(endpoints.http, {
      headers: await this.authHeaders(endpoints.http, endpoints.home, flags.home !== undefined),
      timeoutMs,
    })
  }

  /** A node without the debug namespace says why. */
  protected override describeError(err: unknown): string | undefined {
    const line = super.describeError(err)
    if (line !== undefined && err instanceof JsonRpcClientError && err.code === -32601)
      return `${line} (is debug in the node's --json-rpc.api?)`
    return line
  }
}
