/**
 * The proposal rules of a development chain's blocks: a block may open with a run of dev operations
 * (ops.ts), which PrepareProposal puts first, ProcessProposal accepts only when each decodes, and
 * FinalizeBlock applies (dev-block.ts); their results name their kind.
 */
import { okExecTxResult, type ExecTxResult } from '../../abci/types.js'
import { parseRawTx } from '../txs/raw-tx.js'
import { protoSizeOfTx } from '../txs/fee-recipient-tx.js'
import { decodeDevOp, isDevOp, type DevOp } from './ops.js'

/** ABCI event of an applied dev operation (tx_search `dev_op.kind='setBalance'`). */
export const DEV_OP_EVENT = 'dev_op'

/** The dev operations a block's txs open with (encoded), in order. */
export function leadingDevOps(txs: readonly Uint8Array[]): Uint8Array[] {
  const ops: Uint8Array[] = []
  for (const raw of txs) {
    if (!isDevOp(raw)) break
    ops.push(raw)
  }
  return ops
}

/** The leading dev operations, decoded (an Error when one does not decode), and the txs after them. */
export function splitDevOps(txs: readonly Uint8Array[]): { ops: DevOp[] | Error; txs: readonly Uint8Array[] } {
  const raws = leadingDevOps(txs)
  const rest = txs.slice(raws.length)
  try {
    const ops = raws.map(decodeDevOp)
    for (const op of ops) if (op.kind === 'tx') parseRawTx(op.raw)
    return { ops, txs: rest }
  } catch (err) {
    return { ops: err instanceof Error ? err : new Error(String(err)), txs: rest }
  }
}

/**
 * The gas limit of a block carrying `ops` (the last evm_setBlockGasLimit among them, else `gasLimit`)
 * and the gas limits of the transactions among them, which the block's other txs must leave room for.
 */
export function gasOfDevOps(ops: readonly DevOp[], gasLimit: bigint): { gasLimit: bigint; opsGas: bigint } {
  let limit = gasLimit
  let opsGas = 0n
  for (const op of ops) {
    if (op.kind === 'gasLimit') limit = op.gasLimit
    if (op.kind === 'tx') opsGas += parseRawTx(op.raw).gas
  }
  return { gasLimit: limit, opsGas }
}

/**
 * The queued operations a proposal takes, in order (`ops` and their encodings `raws`), stopping before
 * the first transaction whose gas limit would pass the block's (a proposal never carries more gas than
 * its own ProcessProposal accepts) and after a `mine` (each requested block is a block of its own, with
 * the operations queued before its request). Returns them with the block's gas limit and their gas.
 */
export function takeProposalOps(
  ops: readonly DevOp[],
  raws: readonly Uint8Array[],
  gasLimit: bigint,
): { raws: Uint8Array[]; gasLimit: bigint; opsGas: bigint } {
  let limit = gasLimit
  let opsGas = 0n
  let n = 0
  while (n < ops.length) {
    const op = ops[n]!
    if (op.kind === 'gasLimit') limit = op.gasLimit
    if (op.kind === 'tx') {
      const gas = parseRawTx(op.raw).gas
      if (opsGas + gas > limit) break
      opsGas += gas
    }
    n++
    if (op.kind === 'mine') break
  }
  return { raws: raws.slice(0, n), gasLimit: limit, opsGas }
}

/** `txs` without those at the end that pass `maxTxBytes` (protobuf bytes, as the engine counts them; ≤ 0: no limit). */
export function fitProposalTxs(txs: readonly Uint8Array[], maxTxBytes: number): Uint8Array[] {
  const out: Uint8Array[] = []
  let bytes = 0
  for (const tx of txs) {
    bytes += protoSizeOfTx(tx.length)
    if (maxTxBytes > 0 && bytes > maxTxBytes) break
    out.push(tx)
  }
  return out
}

/** The FinalizeBlock result of an applied dev operation that is not a transaction. */
export function createDevOpResult(raw: Uint8Array): ExecTxResult {
  const kind = decodeDevOp(raw).kind
  return okExecTxResult([{ type: DEV_OP_EVENT, attributes: [{ key: 'kind', value: kind, index: true }] }])
}
