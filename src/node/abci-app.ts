/**
 * The application as a CometBFT drives it over ABCI (`nodectl start --abci`): the EVM application,
 * with the transaction pool standing where our engine's mempool stands today. CometBFT keeps its own
 * mempool (FIFO, gossiped); the pool mirrors what this application has checked, so the EVM JSON-RPC's
 * pending answers (txpool_*, the pending nonce, newPendingTransactions) and proposals keep geth's
 * rules (docs/abci.md):
 *   - CheckTx NEW: the pool's admission (the application's CheckTx, then nonce, funds, replacement and
 *     limits); a refusal is a CheckTx code with geth's text in `log`, never an Exception.
 *   - CheckTx RECHECK (after each Commit): a tx the pool still holds passes; one it does not (mined,
 *     replaced, dropped, or never seen by this process since a restart) is admitted again, so a restarted
 *     application recovers CometBFT's mempool and a stale tx leaves it with the reason.
 *   - PrepareProposal: the pool's executable transactions in geth's order (price across senders, nonce
 *     within one) rather than CometBFT's arrival order, so a gapped nonce waits in both mempools instead
 *     of failing in a block.
 *   - Commit: the application's write, then the pool's update for the block, with the pool locked as
 *     our engine does; then the height is published to EVM subscribers.
 */
import type {
  Application,
  CheckTxResponse,
  CheckTxType,
  FinalizeBlockRequest,
  FinalizeBlockResponse,
  InfoResponse,
  InitChainRequest,
  InitChainResponse,
  PrepareProposalRequest,
  ProcessProposalRequest,
  QueryRequest,
  QueryResponse,
} from '../abci/application.js'
import type { ExecTxResult } from '../abci/types.js'
import { checkTxRejectionOf } from '../api/comet/errors.js'
import type { GenesisDoc } from '../config/genesis-doc.js'
import { readAppStateBytes } from '../config/genesis-file.js'
import { keccak256 } from '../crypto/hash.js'
import type { EvmApplication } from '../evm/app.js'
import { TX_CODESPACE, TxCode } from '../evm/txs/tx-codes.js'
import { equalJsonText } from '../utils/json-text.js'
import { TxPoolError, TxPoolRejection } from '../txpool/tx-pool-error.js'
import type { TxPool } from '../txpool/tx-pool.js'
import { publishEvmBlock, type NodeEvents } from './node-events.js'

const EMPTY = new Uint8Array(0)

export interface AbciAppDeps {
  app: EvmApplication
  pool: TxPool
  events: NodeEvents
  /** The home's genesis.json: CometBFT's InitChain must carry the same `app_state`. */
  genesis: GenesisDoc
}

export class AbciApp implements Application {
  /** The block FinalizeBlock executed, for the pool's update at Commit. */
  private finalized: { height: number; txs: Uint8Array[]; results: ExecTxResult[] } | undefined

  constructor(private readonly deps: AbciAppDeps) {}

  info(): Promise<InfoResponse> {
    return this.deps.app.info()
  }

  async initChain(req: InitChainRequest): Promise<InitChainResponse> {
    // Compared as text (CometBFT passes the file's value on, compacted or not): parsing a genesis of a
    // million accounts twice would take gigabytes.
    if (!equalJsonText(req.appStateBytes, readAppStateBytes(this.deps.genesis))) {
      throw new Error(
        "InitChain: the app_state of CometBFT's genesis differs from this home's config/genesis.json; start cometbft and nodectl from the same home",
      )
    }
    return this.deps.app.initChain(req)
  }

  async checkTx(tx: Uint8Array, type: CheckTxType): Promise<CheckTxResponse> {
    const { pool } = this.deps
    if (type === 'recheck') {
      const pooled = pool.get(keccak256(tx))
      if (pooled) return accepted(pooled.gasLimit)
    }
    try {
      return (await pool.admit(tx)).check
    } catch (err) {
      return checkTxAnswerOf(err, pool, tx)
    }
  }

  prepareProposal(req: PrepareProposalRequest): Promise<{ txs: Uint8Array[] }> {
    const txs = this.deps.pool.reapMaxBytesMaxGas(req.maxTxBytes, this.deps.app.blockGasLimit())
    return this.deps.app.prepareProposal({ ...req, txs })
  }

  processProposal(req: ProcessProposalRequest): Promise<{ accept: boolean }> {
    return this.deps.app.processProposal(req)
  }

  async finalizeBlock(req: FinalizeBlockRequest): Promise<FinalizeBlockResponse> {
    const res = await this.deps.app.finalizeBlock(req)
    this.finalized = { height: req.height, txs: req.txs, results: res.txResults }
    return res
  }

  async commit(): Promise<{ retainHeight: number }> {
    const { app, pool, events } = this.deps
    const block = this.finalized
    this.finalized = undefined
    const release = await pool.lock()
    let answer: { retainHeight: number }
    try {
      answer = await app.commit()
      if (block) await pool.update(block.height, block.txs, block.results)
    } finally {
      release()
    }
    if (block) publishEvmBlock(events, app, block.height)
    return answer
  }

  query(req: QueryRequest): Promise<QueryResponse> {
    return this.deps.app.query(req)
  }
}

function accepted(gasWanted: bigint): CheckTxResponse {
  return { code: TxCode.OK, data: EMPTY, log: '', gasWanted, gasUsed: 0n, events: [], codespace: '' }
}

/**
 * A pool refusal as CheckTx's answer: the application's own, or the pool's rule with geth's text. A tx
 * the pool already holds is accepted (CometBFT asks again only when its own mempool lost it, e.g.
 * after a restart of cometbft); a full pool or an oversized tx are codes too, since an application
 * cannot throw the mempool's errors.
 */
function checkTxAnswerOf(err: unknown, pool: TxPool, tx: Uint8Array): CheckTxResponse {
  if (!(err instanceof TxPoolError)) throw err
  if (err.reason === TxPoolRejection.AlreadyKnown) {
    const pooled = pool.get(keccak256(tx))
    if (pooled) return accepted(pooled.gasLimit)
  }
  const answer = checkTxRejectionOf(err)
  if (answer) return answer
  const code = err.reason === TxPoolRejection.Oversized ? TxCode.TxTooLarge : TxCode.InvalidRequest
  return { code, data: EMPTY, log: err.message, gasWanted: 0n, gasUsed: 0n, events: [], codespace: TX_CODESPACE }
}
