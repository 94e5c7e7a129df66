/**
 * geth's TraceConfig (eth/tracers/api.go) and TraceCallConfig as parameter codecs: `tracer` (a name or a
 * JavaScript program; absent or "" = the struct logger), `tracerConfig` (an object handed to the
 * tracer), `timeout` (a Go duration, default "5s"), `reexec` (accepted and ignored: archive state is
 * kept, nothing needs re-executing to rebuild it), and the struct logger's `enableMemory`,
 * `disableStack`, `disableStorage`, `enableReturnData`, `limit` (`debug` accepted, ignored). Unknown
 * keys are ignored, as Go's decoder does. Field errors read as Go's
 * (`json: cannot unmarshal string into Go struct field TraceConfig.limit of type int`); the dispatcher
 * prefixes `invalid argument N: `.
 */
import { defaultStructLoggerOptions } from '../../evm/tracing/struct-logger.js'
import { DEFAULT_TRACE_TIMEOUT_MS } from '../../evm/tracing/trace-deadline.js'
import type { TracerRequest } from '../../evm/tracing/tracer-registry.js'
import { parseDuration } from '../../config/duration.js'
import { DecodeError, bool, jsonKind, objectOf, string, structField, type Codec } from '../../rpc/codecs.js'
import type { CallOverrides } from './backend.js'
import { blockOverrides, stateOverrides } from './overrides.js'

/** The struct logger with default options and geth's 5 s timeout. */
export function defaultTracerRequest(): TracerRequest {
  return {
    tracer: undefined,
    tracerConfig: undefined,
    structLogger: { ...defaultStructLoggerOptions },
    timeoutMs: DEFAULT_TRACE_TIMEOUT_MS,
  }
}

/** Go `int` / `uint64` from a JSON number. */
function integer(goType: string, min: number): Codec<number> {
  return (value) => {
    if (typeof value !== 'number') throw new DecodeError(jsonKind(value), goType)
    if (!Number.isSafeInteger(value) || value < min) throw new DecodeError(`number ${value}`, goType)
    return value
  }
}

/** A Go duration string, with Go's `time: …` wording for a bad one. */
const duration: Codec<number> = (value) => {
  const text = string(value)
  try {
    return parseDuration(text)
  } catch (err) {
    throw new DecodeError(`time: ${(err as Error).message.replace(/ \(units: .*\)$/, '')}`)
  }
}

/** `tracerConfig`: any JSON object (geth takes raw JSON; every tracer's config is an object). */
const tracerConfig: Codec<Record<string, unknown> | undefined> = (value) => {
  if (value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) throw new DecodeError(jsonKind(value), 'map[string]interface {}')
  return value as Record<string, unknown>
}

function readTraceConfig(obj: Record<string, unknown>, struct: string): TracerRequest {
  const req = defaultTracerRequest()
  const tracer = structField(obj, struct, 'tracer', string)
  req.tracer = tracer === '' ? undefined : tracer
  req.tracerConfig = structField(obj, struct, 'tracerConfig', tracerConfig)
  req.timeoutMs = structField(obj, struct, 'timeout', duration) ?? DEFAULT_TRACE_TIMEOUT_MS
  structField(obj, struct, 'reexec', integer('uint64', 0))
  structField(obj, struct, 'debug', bool)
  const logger = req.structLogger
  logger.enableMemory = structField(obj, struct, 'enableMemory', bool) ?? false
  logger.disableStack = structField(obj, struct, 'disableStack', bool) ?? false
  logger.disableStorage = structField(obj, struct, 'disableStorage', bool) ?? false
  logger.enableReturnData = structField(obj, struct, 'enableReturnData', bool) ?? false
  logger.limit = structField(obj, struct, 'limit', integer('int', Number.MIN_SAFE_INTEGER)) ?? 0
  return req
}

/** geth `*TraceConfig` of debug_traceTransaction and debug_traceBlockBy*. */
export const traceConfig: Codec<TracerRequest> = (value) => readTraceConfig(objectOf(value ?? {}, 'tracers.TraceConfig'), 'TraceConfig')

/** debug_traceCall's config: TraceConfig plus state and block overrides (`txIndex` is ignored). */
export interface TraceCallConfig {
  request: TracerRequest
  overrides: CallOverrides
}

/** geth `*TraceCallConfig`. */
export const traceCallConfig: Codec<TraceCallConfig> = (value) => {
  const obj = objectOf(value ?? {}, 'tracers.TraceCallConfig')
  return {
    request: readTraceConfig(obj, 'TraceCallConfig'),
    overrides: {
      stateOverrides: structField(obj, 'TraceCallConfig', 'stateOverrides', stateOverrides) ?? [],
      blockOverrides: structField(obj, 'TraceCallConfig', 'blockOverrides', blockOverrides),
    },
  }
}

/** debug_traceCall without a config. */
export function defaultTraceCallConfig(): TraceCallConfig {
  return { request: defaultTracerRequest(), overrides: { stateOverrides: [], blockOverrides: undefined } }
}
