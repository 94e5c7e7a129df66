/**
 * What `nodectl start --abci` asks of the CometBFT that drives it, over CometBFT's JSON-RPC: the
 * transactions EVM clients send go to `broadcast_tx_sync` (so they pass CometBFT's mempool and our
 * CheckTx), and `/status` and `/net_info` say whether it is catching up and how many peers it has.
 */
import { keccak256 } from '../crypto/hash.js'
import { bytesToBase64 } from '../primitives/hex.js'
import { TxPoolError, TxPoolRejection, txPoolErrors } from '../txpool/tx-pool-error.js'

/** CometBFT's JSON-RPC answered with an error, or could not be reached. */
export class CometRpcUnavailableError extends Error {}

interface JsonRpcReply<T> {
  result?: T
  error?: { code: number; message: string; data?: string }
}

/** CometBFT's ResultBroadcastTx (JSON: numbers as numbers, bytes as base64). */
interface BroadcastResult {
  code: number
  log: string
  codespace: string
}

/** The mempool's own refusals (CometBFT `mempool/errors.go`), thrown before or after CheckTx, in geth's words. */
const MEMPOOL_ERRORS: [RegExp, () => TxPoolError][] = [
  [/^tx already exists in cache/, () => txPoolErrors.alreadyKnown()],
  [/^mempool is full/, () => txPoolErrors.poolFull()],
]

export class CometClient {
  /** `url`: CometBFT's RPC, e.g. http://127.0.0.1:26657. */
  constructor(readonly url: string) {}

  /**
   * Hands `raw` to CometBFT's mempool; resolves with its EVM hash once CheckTx accepted it. A CheckTx
   * refusal is a `TxPoolError` with the application's log (geth's message), as the pool would throw.
   */
  async broadcastTx(raw: Uint8Array): Promise<Uint8Array> {
    const reply = await this.call<BroadcastResult>('broadcast_tx_sync', { tx: bytesToBase64(raw) })
    if (reply.error) {
      const detail = reply.error.data ?? reply.error.message
      const known = MEMPOOL_ERRORS.find(([pattern]) => pattern.test(detail))
      if (known) throw known[1]()
      if (/^Tx too large/.test(detail)) throw new TxPoolError(TxPoolRejection.Oversized, `oversized data: ${detail}`)
      throw new CometRpcUnavailableError(`CometBFT refused the transaction: ${detail}`)
    }
    const result = reply.result!
    if (result.code !== 0) {
      throw txPoolErrors.checkTx({
        code: result.code,
        log: result.log,
        codespace: result.codespace,
        data: new Uint8Array(0),
        gasWanted: 0n,
        gasUsed: 0n,
        events: [],
      })
    }
    return keccak256(raw)
  }

  /** `/status`'s `catching_up` and `/net_info`'s `n_peers`. */
  async syncAndPeers(): Promise<{ catchingUp: boolean; peers: number }> {
    const [status, netInfo] = await Promise.all([
      this.call<{ sync_info: { catching_up: boolean } }>('status', {}),
      this.call<{ n_peers: string }>('net_info', {}),
    ])
    return { catchingUp: status.result?.sync_info.catching_up === true, peers: Number(netInfo.result?.n_peers ?? 0) }
  }

  private async call<T>(method: string, params: Record<string, unknown>): Promise<JsonRpcReply<T>> {
    let response: Response
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message
      throw new CometRpcUnavailableError(`cannot reach CometBFT's RPC at ${this.url} (${cause}): is cometbft running?`)
    }
    const text = await response.text()
    try {
      return JSON.parse(text) as JsonRpcReply<T>
    } catch {
      throw new CometRpcUnavailableError(
        `CometBFT's RPC at ${this.url} answered ${method} with HTTP ${response.status}: ${text.slice(0, 200)}`,
      )
    }
  }
}
