/** The EVM surface's error table: every listed class, one error each, and the code, message and data geth gives it. */
import { describe, expect, it } from 'vitest'
import { AccountError } from '../../../src/api/eth/account-errors.js'
import { EVM_ERRORS, renderEvmApiError } from '../../../src/api/evm-errors.js'
import {
  CallArgsError,
  CallTimeoutError,
  ExecutionRevertedError,
  LogLimitError,
  PrunedHistoryError,
  MissingStateError,
  UnknownBlockError,
  VmExecutionError,
} from '../../../src/evm/errors.js'
import { SimulateCode, SimulateError } from '../../../src/evm/calls/simulate-errors.js'
import { TracerConfigError } from '../../../src/evm/tracing/hooks.js'
import {
  GenesisNotTraceableError,
  TraceTimeoutError,
  TraceTooLargeError,
  TraceTxNotFoundError,
  TracerError,
  TracerNotFoundError,
  TracingFailedError,
} from '../../../src/evm/tracing/trace-errors.js'
import { decodeRevertReason } from '../../../src/evm/vm-errors.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'
import { RpcError } from '../../../src/rpc/rpc-errors.js'
import { txPoolErrors } from '../../../src/txpool/tx-pool-error.js'
import { NodeError } from '../../../src/utils/errors.js'

/** `Error("nope")`, ABI-encoded. */
const NOPE = hexToBytes(
  '0x08c379a0' +
    '0000000000000000000000000000000000000000000000000000000000000020' +
    '0000000000000000000000000000000000000000000000000000000000000004' +
    '6e6f706500000000000000000000000000000000000000000000000000000000',
)

const CASES: [Error, { code: number; message: string; data?: string }][] = [
  [new ExecutionRevertedError(NOPE, decodeRevertReason(NOPE)), { code: 3, message: 'execution reverted: nope', data: bytesToHex(NOPE) }],
  [new ExecutionRevertedError(new Uint8Array(0), undefined), { code: -32000, message: 'execution reverted' }],
  [new VmExecutionError('out of gas'), { code: -32000, message: 'out of gas' }],
  [new CallTimeoutError(5000), { code: -32000, message: 'execution aborted (timeout = 5s)' }],
  [new CallArgsError('intrinsic gas too low: have 1, want 21000'), { code: -32000, message: 'intrinsic gas too low: have 1, want 21000' }],
  [
    new SimulateError(SimulateCode.nonceTooHigh, 'nonce too high: address 0x1, tx: 2 state: 1'),
    { code: -38011, message: 'nonce too high: address 0x1, tx: 2 state: 1' },
  ],
  [new UnknownBlockError(), { code: -32000, message: 'header not found' }],
  [new UnknownBlockError('header for hash not found'), { code: -32000, message: 'header for hash not found' }],
  [new PrunedHistoryError(), { code: 4444, message: 'pruned history unavailable' }],
  [
    new MissingStateError(7, new Uint8Array(32).fill(0xab)),
    { code: -32000, message: `historical state ${'ab'.repeat(32)} is not available` },
  ],
  [new LogLimitError(10000), { code: -32000, message: 'query returned more than 10000 results' }],
  [txPoolErrors.alreadyKnown(), { code: -32000, message: 'already known' }],
  [txPoolErrors.poolFull(), { code: -32000, message: 'txpool is full' }],
  [txPoolErrors.oversized(200000, 131072), { code: -32000, message: 'oversized data: transaction size 200000, limit 131072' }],
  [new TraceTimeoutError(), { code: -32000, message: 'execution timeout' }],
  [
    new TraceTooLargeError(50000),
    {
      code: -32003,
      message:
        'response too large: the trace exceeds 50000 bytes ([json-rpc] trace-response-max-size, --json-rpc.trace-response-max-size); ' +
        'trace fewer steps (limit, disableStack, disableStorage) or raise the setting',
    },
  ],
  [new TracerNotFoundError(), { code: -32000, message: 'tracer not found' }],
  [new TracerConfigError('invalid tracerConfig for callTracer'), { code: -32000, message: 'invalid tracerConfig for callTracer' }],
  [new TracerError('TypeError: x is undefined'), { code: -32000, message: 'TypeError: x is undefined' }],
  [new TraceTxNotFoundError(), { code: -32000, message: 'transaction not found' }],
  [new GenesisNotTraceableError(), { code: -32000, message: 'genesis is not traceable' }],
  [new TracingFailedError('nonce too low'), { code: -32000, message: 'tracing failed: nonce too low' }],
  [new AccountError('unknown account'), { code: -32000, message: 'unknown account' }],
  [new NodeError('filter not found'), { code: -32000, message: 'filter not found' }],
]

describe('EVM error table', () => {
  it.each(CASES)('%s', (err, wire) => {
    expect(renderEvmApiError(err)).toEqual(wire)
  })

  it('has a case for every row', () => {
    const tested = new Set(CASES.map(([err]) => err.constructor))
    const untested = EVM_ERRORS.map((row) => row.type).filter((type) => !tested.has(type))
    expect(untested.map((type) => type.name)).toEqual([])
  })

  it('knows neither protocol errors nor unexpected exceptions', () => {
    expect(renderEvmApiError(new RpcError(-32602, 'invalid argument 0: hex string without 0x prefix'))).toBeUndefined()
    expect(renderEvmApiError(new TypeError('secret internal detail'))).toBeUndefined()
    expect(renderEvmApiError('not an error')).toBeUndefined()
  })
})
