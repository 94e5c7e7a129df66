/**
 * The payload types of the ABCI 2.0 boundary (CometBFT v0.38 `abci/types` and the proto types its messages
 * carry): what the application returns for a block and its transactions, the validator updates and
 * consensus parameters it may change, and the vote flags it is told about. Both the consensus engine and the
 * application build on them; they depend on nothing but plain values.
 */

export const BlockIDFlag = { Absent: 1, Commit: 2, Nil: 3 } as const
export type BlockIDFlag = (typeof BlockIDFlag)[keyof typeof BlockIDFlag]

/** ABCI validator update: power 0 removes the validator. */
export interface ValidatorUpdate {
  pubKey: Uint8Array
  power: bigint
}

export interface ConsensusParams {
  block: { maxBytes: bigint; maxGas: bigint }
  evidence: { maxAgeNumBlocks: bigint; maxAgeDurationNs: bigint; maxBytes: bigint }
  validator: { pubKeyTypes: string[] }
  version: { app: bigint }
  abci: { voteExtensionsEnableHeight: bigint }
}

/** ABCI event: `type` with ordered attributes (strings since v0.35). */
export interface AbciEvent {
  type: string
  attributes: { key: string; value: string; index: boolean }[]
}

/** ABCI ExecTxResult (the FinalizeBlock result of one tx). */
export interface ExecTxResult {
  code: number
  data: Uint8Array
  log: string
  info: string
  gasWanted: bigint
  gasUsed: bigint
  events: AbciEvent[]
  codespace: string
}

/** A successful ExecTxResult that used no gas, with `events` (a system transaction, an empty result). */
export function okExecTxResult(events: AbciEvent[] = []): ExecTxResult {
  return { code: 0, data: new Uint8Array(0), log: '', info: '', gasWanted: 0n, gasUsed: 0n, events, codespace: '' }
}

/** ABCI `TxResult`: a committed tx, where it landed and what it did. */
export interface TxResult {
  height: number
  index: number
  tx: Uint8Array
  result: ExecTxResult
}
