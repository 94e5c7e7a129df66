/**
 * geth's `4byteTracer` (eth/tracers/native/4byte.go): how often each function selector was called,
 * keyed `0x<selector>-<size of the arguments after it>` so a reversed signature can be checked against
 * the data size. Counts every CALL, CALLCODE, DELEGATECALL and STATICCALL with at least 4 bytes of
 * input, the transaction's own call included; creations, self-destructs and precompiles are skipped.
 * It takes no tracerConfig.
 */
import { bytesToHex } from '../../../primitives/hex.js'
import type { FrameType, Tracer, TracerFactory } from '../hooks.js'
import { isPrecompiled } from './precompiles.js'

/** A selector is the first 4 bytes of the calldata (Solidity ABI). */
const SELECTOR_LENGTH = 4

const CALL_TYPES: ReadonlySet<FrameType> = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])

/** Builds a 4byteTracer for one transaction. */
export const createFourByteTracer: TracerFactory = () => {
  const ids = new Map<string, number>()
  let stopped: Error | undefined
  const tracer: Tracer = {
    onEnter: (frame) => {
      if (stopped || frame.input.length < SELECTOR_LENGTH || !CALL_TYPES.has(frame.type) || isPrecompiled(frame.to)) return
      const key = `${bytesToHex(frame.input.subarray(0, SELECTOR_LENGTH))}-${frame.input.length - SELECTOR_LENGTH}`
      ids.set(key, (ids.get(key) ?? 0) + 1)
    },
    result: () => {
      if (stopped) throw stopped
      // Sorted as Go's encoding/json sorts map keys.
      return Object.fromEntries([...ids].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    },
    stop: (reason) => {
      stopped = reason
    },
  }
  return tracer
}
