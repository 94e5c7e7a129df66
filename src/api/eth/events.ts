/**
 * The chain events the eth filters and subscriptions adapt, each with its own lifetime: committed blocks and
 * transactions entering the pool. The node implements `EthEvents` over the EVM application's `block`
 * event and the pool's `newPendingTx`; tests can emit them by hand. Listeners are attached only while
 * a filter or subscription needs them (`LazyListener`): the application skips building the block
 * event when nobody listens.
 */
import type { EvmBlock, EvmLog, EvmTx } from '../../evm/store/views.js'

/** A committed block with its transactions (block fields set) and its logs in block order. */
export interface EthBlockEvent {
  block: EvmBlock
  transactions: EvmTx[]
  logs: EvmLog[]
}

/** A transaction that entered the pool (pending or queued, replacements included). */
export interface EthPendingTxEvent {
  hash: Uint8Array
  /** The transaction as eth_getTransactionByHash shows it while pending (decoded on demand). */
  transaction(): EvmTx
}

/** Event sources of the eth namespace; each `on...` returns the function that unsubscribes. */
export interface EthEvents {
  onBlock(listener: (event: EthBlockEvent) => void): () => void
  onPendingTransaction(listener: (event: EthPendingTxEvent) => void): () => void
  /** A dev chain went back to a height (evm_revert, anvil_reset): blocks above it are gone. */
  onRewind?(listener: (height: number) => void): () => void
  /** Just before `onRewind`: the logs of the removed blocks in chain order, each `removed: true`. */
  onRemovedLogs?(listener: (logs: EvmLog[]) => void): () => void
}

/**
 * A listener held on a source only while at least one user retains it. `attach` subscribes and
 * returns the unsubscribe function.
 */
export class LazyListener {
  private users = 0
  private detach: (() => void) | undefined

  constructor(private readonly attach: () => () => void) {}

  retain(): void {
    if (this.users++ === 0) this.detach = this.attach()
  }

  release(): void {
    if (this.users === 0) return
    if (--this.users === 0) this.close()
  }

  /** Detaches whatever the users count. */
  close(): void {
    this.users = 0
    this.detach?.()
    this.detach = undefined
  }
}

/**
 * Subscription and filter ids as geth's `rpc.NewID`: `0x` and the hex of 16 random bytes, leading
 * zeros trimmed (`0x0` in the unlikely all-zero case).
 */
export function newRandomId(randomBytes: (n: number) => Uint8Array): string {
  const hex = Buffer.from(randomBytes(16)).toString('hex').replace(/^0+/, '')
  return '0x' + (hex === '' ? '0' : hex)
}
