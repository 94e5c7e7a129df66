/**
 * geth's `callTracer` (eth/tracers/native/call.go): the transaction's call tree. tracerConfig
 * `onlyTopCall` keeps only the top frame, `withLog` adds each frame's logs with their position among
 * the frame's calls, dropping the logs of failed frames and their descendants (they were never emitted).
 */
import { bytesToHex } from '../../../primitives/hex.js'
import { toQuantity } from '../../../primitives/quantity.js'
import type { Tracer, TracerFactory } from '../hooks.js'
import { CallRecorder, type CallFrame, type CallLog } from './call-recorder.js'
import { readFlags } from './tracer-config.js'

/** A log as callTracer renders it. */
export interface CallLogJson {
  address: string
  topics: string[]
  data: string
  position: string
}

/** A call frame as callTracer renders it, in geth's field order (gencodec `callFrame`). */
export interface CallFrameJson {
  from: string
  gas: string
  gasUsed: string
  to?: string
  input: string
  output?: string
  error?: string
  revertReason?: string
  calls?: CallFrameJson[]
  logs?: CallLogJson[]
  value?: string
  type: string
}

function encodeLog(log: CallLog): CallLogJson {
  return {
    address: bytesToHex(log.address),
    topics: log.topics.map(bytesToHex),
    data: bytesToHex(log.data),
    position: toQuantity(log.position),
  }
}

/** geth's JSON of a frame: empty output, calls and logs are omitted (`omitempty`), as is a STATICCALL's value. */
export function encodeCallFrame(frame: CallFrame): CallFrameJson {
  return {
    from: bytesToHex(frame.from),
    gas: toQuantity(frame.gas),
    gasUsed: toQuantity(frame.gasUsed),
    ...(frame.to !== undefined ? { to: bytesToHex(frame.to) } : {}),
    input: bytesToHex(frame.input),
    ...(frame.output !== undefined && frame.output.length > 0 ? { output: bytesToHex(frame.output) } : {}),
    ...(frame.error !== undefined ? { error: frame.error } : {}),
    ...(frame.revertReason ? { revertReason: frame.revertReason } : {}),
    ...(frame.calls.length > 0 ? { calls: frame.calls.map(encodeCallFrame) } : {}),
    ...(frame.logs.length > 0 ? { logs: frame.logs.map(encodeLog) } : {}),
    ...(frame.value !== undefined ? { value: toQuantity(frame.value) } : {}),
    type: frame.type,
  }
}

/** Builds a callTracer for one transaction. */
export const createCallTracer: TracerFactory = ({ tracerConfig }) => {
  const config = readFlags('callTracer', tracerConfig, ['onlyTopCall', 'withLog'] as const)
  const recorder = new CallRecorder(config)
  let stopped: Error | undefined
  const tracer: Tracer = {
    onTxStart: (tx) => {
      if (!stopped) recorder.txStart(tx)
    },
    onEnter: (frame) => {
      if (!stopped) recorder.enter(frame)
    },
    onExit: (frame) => {
      if (!stopped) recorder.exit(frame)
    },
    onLog: (log) => {
      if (!stopped) recorder.log(log)
    },
    onTxEnd: (result) => {
      if (!stopped) recorder.txEnd(result)
    },
    result: () => {
      if (stopped) throw stopped
      return encodeCallFrame(recorder.top())
    },
    stop: (reason) => {
      stopped = reason
    },
  }
  return tracer
}
