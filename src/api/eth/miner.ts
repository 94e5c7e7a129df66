/**
 * The miner namespace (private: served only when `miner` is listed in `--json-rpc.api`). There is no
 * mining; what a BFT validator can honour is its minimum gas price and its fee recipient:
 * - miner_getHashrate: 0, a JSON number (spec);
 * - miner_setGasPrice(hex): true; the pool's minimum from now on, persisted in app.toml (backend);
 * - miner_setEtherbase(address): true; the fee recipient of the blocks this validator proposes;
 * - miner_setExtra(data): the 32-byte cap is checked first (geth's message), then unsupported: a
 *   proposal carries no extra data;
 * - miner_start, miner_setGasLimit: unsupported (docs/decisions.md: an error, not the `false` of Evmos'
 *   miner_setGasLimit; the block gas limit is a consensus parameter);
 * - miner_stop: null, a no-op (docs/decisions.md).
 */
import { NodeError } from '../../utils/errors.js'
import { DecodeError, address, jsonKind, quantity, string, uint64, type Codec } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'

/** geth `params.MaximumExtraDataSize`: bytes of extra data a block header may carry. */
export const MAX_EXTRA_DATA_BYTES = 32

/**
 * miner_start's optional thread count: a Go `*int` (Evmos `Start(threads *int)`), i.e. a JSON integer,
 * not a QUANTITY string.
 */
export const threadCount: Codec<number> = (value) => {
  if (typeof value !== 'number') throw new DecodeError(jsonKind(value), 'int')
  if (!Number.isSafeInteger(value)) throw new DecodeError(`number ${value}`, 'int')
  return value
}

/** -32000 `unsupported rpc function: miner_<name>` (Evmos' wording). */
function unsupported(method: string): NodeError {
  return new NodeError(`unsupported rpc function: ${method}`)
}

export function createMinerMethods(backend: EthBackend): MethodTable {
  return [
    defineMethod('miner_getHashrate', [], () => 0),
    defineMethod('miner_setGasPrice', [required(quantity)], async ([wei]) => {
      await backend.setMinGasPrice(wei)
      return true
    }),
    defineMethod('miner_setEtherbase', [required(address)], async ([etherbase]) => {
      await backend.setEtherbase(etherbase)
      return true
    }),
    // geth measures the string as given (its UTF-8 bytes), not hex-decoded.
    defineMethod('miner_setExtra', [required(string)], ([extra]) => {
      const length = Buffer.byteLength(extra, 'utf8')
      if (length > MAX_EXTRA_DATA_BYTES) throw new NodeError(`extra exceeds max length. ${length} > ${MAX_EXTRA_DATA_BYTES}`)
      throw unsupported('miner_setExtra')
    }),
    defineMethod('miner_start', [optional(threadCount)], () => {
      throw unsupported('miner_start')
    }),
    defineMethod('miner_stop', [], () => null),
    defineMethod('miner_setGasLimit', [required(uint64)], () => {
      throw unsupported('miner_setGasLimit')
    }),
  ]
}
