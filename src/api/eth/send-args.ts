/**
 * The transaction-arguments object of the methods that sign (eth_sendTransaction,
 * personal_sendTransaction, eth_signTransaction): the call object of call-args.ts (geth
 * `TransactionArgs`, `gasLimit` accepted for `gas`) with `from` required, as the spec's argument table
 * says. geth would sign for the zero address and fail with `unknown account`; a missing `from` is a
 * caller's mistake, so it is an invalid argument here, worded as Go's generated decoders word it.
 */
import { DecodeError, type Codec } from '../../rpc/codecs.js'
import type { CallArgs } from './backend.js'
import { callArgs } from './call-args.js'

/** Call arguments with the sender known. */
export type SendArgs = CallArgs & { from: Uint8Array }

export const sendArgs: Codec<SendArgs> = (value) => {
  const args = callArgs(value)
  if (args.from === undefined) throw new DecodeError("missing required field 'from' for TransactionArgs")
  return args as SendArgs
}
