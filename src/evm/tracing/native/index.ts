/**
 * geth's native tracers by the names debug_trace* takes in `tracer`. The debug namespace adds the
 * struct logger and the JavaScript tracers; a muxTracer that should compose those too is built with
 * `createMuxTracer` over the combined registry.
 */
import type { TracerFactory } from '../hooks.js'
import { createCallTracer } from './call-tracer.js'
import { createFlatCallTracer } from './flat-call-tracer.js'
import { createFourByteTracer } from './four-byte-tracer.js'
import { createMuxTracer } from './mux-tracer.js'
import { createPrestateTracer } from './prestate-tracer.js'

export { createCallTracer, encodeCallFrame, type CallFrameJson, type CallLogJson } from './call-tracer.js'
export { createFlatCallTracer, type FlatTraceJson } from './flat-call-tracer.js'
export { createFourByteTracer } from './four-byte-tracer.js'
export { createMuxTracer, type TracerRegistry } from './mux-tracer.js'
export { createPrestateTracer } from './prestate-tracer.js'
export { isPrecompiled } from './precompiles.js'

/** The native tracers; its muxTracer composes any of them (itself included). */
export const nativeTracers: Record<string, TracerFactory> = {
  callTracer: createCallTracer,
  flatCallTracer: createFlatCallTracer,
  prestateTracer: createPrestateTracer,
  '4byteTracer': createFourByteTracer,
}
nativeTracers.muxTracer = createMuxTracer(nativeTracers)
