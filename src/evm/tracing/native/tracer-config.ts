/**
 * Reading a native tracer's `tracerConfig` as geth's `json.Unmarshal` into the tracer's config struct
 * does: known keys must have the right type (else TracerConfigError), absent or null keys keep their
 * zero value, unknown keys are ignored (geth ignores them too, and clients send extra keys).
 */
import { TracerConfigError } from '../hooks.js'

/** Describes a JSON value's type for an error message (`string`, `array`, `null`…). */
function describeJsonType(value: unknown): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'array' : typeof value
}

/** Fails unless `config` is a JSON object (or absent/null, which means "defaults"). */
export function requireConfigObject(tracer: string, config: unknown): Record<string, unknown> {
  if (config === undefined || config === null) return {}
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw new TracerConfigError(`invalid tracerConfig for ${tracer}: expected an object, got ${describeJsonType(config)}`)
  }
  return config as Record<string, unknown>
}

/** The boolean flags `keys` of `config` (false when absent or null). */
export function readFlags<K extends string>(tracer: string, config: unknown, keys: readonly K[]): Record<K, boolean> {
  const object = requireConfigObject(tracer, config)
  const flags = {} as Record<K, boolean>
  for (const key of keys) {
    const value = object[key]
    if (value !== undefined && value !== null && typeof value !== 'boolean') {
      throw new TracerConfigError(`invalid tracerConfig for ${tracer}: ${key} must be a boolean, got ${describeJsonType(value)}`)
    }
    flags[key] = value === true
  }
  return flags
}
