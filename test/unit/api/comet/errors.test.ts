/**
 * The CometBFT surface's error table: every listed class, and every pool rejection, with the code and
 * text CometBFT gives it (a mempool error, the application's CheckTx refusal, or a CheckTx failure
 * with the pool's code and text).
 */
import { describe, expect, it } from 'vitest'
import {
  COMET_ERRORS,
  InvalidParamsError,
  MethodNotFoundError,
  checkTxRejectionOf,
  cometErrorOf,
  renderCometError,
} from '../../../../src/api/comet/errors.js'
import { QueryParseError } from '../../../../src/comet/query/query.js'
import { TX_CODESPACE, TxCode } from '../../../../src/evm/txs/tx-codes.js'
import { TxPoolError, TxPoolRejection, txPoolErrors } from '../../../../src/txpool/tx-pool-error.js'
import type { ErrorClass } from '../../../../src/utils/errors.js'

const ADDRESS = '0x' + '11'.repeat(20)
const ACCEPTED = { code: 0, data: new Uint8Array(0), log: '', gasWanted: 0n, gasUsed: 0n, events: [], codespace: '' }

const CASES: [Error, { code: number; data: string }][] = [
  [
    new InvalidParamsError('error converting json params to arguments'),
    { code: -32602, data: 'error converting json params to arguments' },
  ],
  [new MethodNotFoundError(), { code: -32601, data: '' }],
  [new QueryParseError(14, 'expected end of query'), { code: -32603, data: 'offset 14: expected end of query' }],
  [txPoolErrors.alreadyKnown(), { code: -32603, data: 'tx already exists in cache' }],
  [txPoolErrors.oversized(131073, 131072), { code: -32603, data: 'Tx too large. Max size is 131072, but got 131073' }],
  [txPoolErrors.poolFull(), { code: -32603, data: 'mempool is full: txpool is full' }],
  [txPoolErrors.nonceTooLow(ADDRESS, 1n, 2n), { code: -32603, data: `nonce too low: address ${ADDRESS}, tx: 1 state: 2` }],
  [new Error('transaction indexing is disabled'), { code: -32603, data: 'transaction indexing is disabled' }],
]

/** Each pool rejection of the pool's own rules: a CheckTx code, or undefined for the mempool's own errors (thrown). */
const CHECK_TX_CODES: Record<Exclude<TxPoolRejection, 'check-tx'>, number | undefined> = {
  [TxPoolRejection.FeeCapExceeded]: TxCode.InsufficientFee,
  [TxPoolRejection.Oversized]: undefined,
  [TxPoolRejection.AlreadyKnown]: undefined,
  [TxPoolRejection.NonceTooLow]: TxCode.InvalidSequence,
  [TxPoolRejection.InsufficientFunds]: TxCode.InsufficientFunds,
  [TxPoolRejection.ReplaceUnderpriced]: TxCode.InsufficientFee,
  [TxPoolRejection.PoolFull]: undefined,
  [TxPoolRejection.FutureReplacePending]: TxCode.InvalidRequest,
  [TxPoolRejection.AccountLimit]: TxCode.InvalidRequest,
}

describe('CometBFT error table', () => {
  it.each(CASES)('%s', (err, wire) => {
    expect(cometErrorOf(err)).toEqual(wire)
  })

  it('has a case for every row', () => {
    const tested = CASES.map(([err]) => err)
    const covered = (type: ErrorClass): boolean => tested.some((err) => err instanceof type)
    const untested = COMET_ERRORS.map((row) => row.type).filter((type) => !covered(type))
    expect(untested.map((type) => type.name)).toEqual([])
  })

  it.each(Object.entries(CHECK_TX_CODES))('pool rejection %s', (reason, code) => {
    const err = new TxPoolError(reason as TxPoolRejection, 'the pool says no')
    err.checkTx = { ...ACCEPTED, gasWanted: 21000n }
    expect(checkTxRejectionOf(err)).toEqual(
      code === undefined ? undefined : { ...ACCEPTED, gasWanted: 21000n, code, log: 'the pool says no', codespace: TX_CODESPACE },
    )
  })

  it("passes the application's CheckTx refusal on as it is", () => {
    const refusal = { ...ACCEPTED, code: TxCode.OutOfGas, log: 'exceeds block gas limit', gasWanted: 5n, codespace: TX_CODESPACE }
    expect(checkTxRejectionOf(txPoolErrors.checkTx(refusal))).toEqual(refusal)
  })

  it("puts the code's fixed phrase in `message` and omits empty data", () => {
    expect(renderCometError(7, txPoolErrors.alreadyKnown())).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'Internal error', data: 'tx already exists in cache' },
    })
    expect(renderCometError(-1, new MethodNotFoundError()).error).toEqual({ code: -32601, message: 'Method not found', data: undefined })
    expect(checkTxRejectionOf(new Error('not a pool rejection'))).toBeUndefined()
  })
})
