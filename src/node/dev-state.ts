/**
 * The dev methods that change state or the next block's header (api/dev/state.ts), over the
 * application's dev-operation queue: a set is queued wanting a block and answers once that block is
 * committed; a header override is queued for the next block, however it is made, and answers at once.
 */
import type { DevHeaderBackend, DevStateBackend, NonceRule } from '../api/dev/index.js'
import type { EvmApplication } from '../evm/app.js'
import type { DevOpQueue } from '../evm/dev/op-queue.js'
import type { DevOp } from '../evm/dev/ops.js'
import type { TxPool } from '../txpool/index.js'
import { NodeError } from '../utils/errors.js'
import { decodeStateDump, encodeStateDump, type DumpedAccount } from '../evm/dev/state-dump.js'

export class NodeDevState implements DevStateBackend, DevHeaderBackend {
  constructor(
    private readonly app: EvmApplication,
    private readonly queue: DevOpQueue,
    private readonly pool: Pick<TxPool, 'setBlockGasLimit'>,
  ) {}

  setBalance(address: Uint8Array, balance: bigint): Promise<void> {
    return this.set({ kind: 'setBalance', address, balance })
  }

  setCode(address: Uint8Array, code: Uint8Array): Promise<void> {
    return this.set({ kind: 'setCode', address, code })
  }

  async setNonce(address: Uint8Array, nonce: bigint, rule: NonceRule): Promise<void> {
    if (rule === 'notLower') {
      const existing = await this.app.getNonce(address)
      if (nonce < existing) throw new NodeError(`New nonce (${nonce}) must not be smaller than the existing nonce (${existing})`)
    }
    return this.set({ kind: 'setNonce', address, nonce })
  }

  setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    return this.set({ kind: 'setStorageAt', address, slot, value })
  }

  async dumpState(): Promise<Uint8Array> {
    const accounts: DumpedAccount[] = []
    for (const { address, slots } of await this.app.devAccounts()) {
      const [account, code] = await Promise.all([this.app.getAccount(address), this.app.getCode(address)])
      const values = await Promise.all(slots.map((slot) => this.app.getStorageAt(address, slot)))
      const storage = slots.flatMap((slot, i): [Uint8Array, Uint8Array][] => (values[i]!.some((b) => b !== 0) ? [[slot, values[i]!]] : []))
      if (account.nonce === 0n && account.balance === 0n && code.length === 0 && storage.length === 0) continue
      accounts.push({ address, nonce: account.nonce, balance: account.balance, code, storage })
    }
    return encodeStateDump(accounts)
  }

  /** Queues every account's sets at once (they share blocks), then waits for them all. */
  async loadState(blob: Uint8Array): Promise<void> {
    let accounts: DumpedAccount[]
    try {
      accounts = decodeStateDump(blob)
    } catch (err) {
      throw new NodeError(`failed to load state: ${err instanceof Error ? err.message : String(err)}`)
    }
    const sets: Promise<void>[] = []
    for (const a of accounts) {
      sets.push(this.setBalance(a.address, a.balance), this.setNonce(a.address, a.nonce, 'any'), this.setCode(a.address, a.code))
      for (const [slot, value] of a.storage) sets.push(this.setStorageAt(a.address, slot, value))
    }
    await Promise.all(sets)
  }

  /** Hardhat's rule and wording: the next block's timestamp must be after the latest block's. */
  setNextTimestamp(timestamp: bigint): void {
    const latest = BigInt(this.app.latestBlock()?.timestamp ?? 0)
    if (timestamp <= latest) {
      throw new NodeError(`Timestamp ${timestamp} is lower than or equal to previous block's timestamp ${latest}`)
    }
    this.override({ kind: 'nextTimestamp', timestamp })
  }

  increaseTime(seconds: bigint): bigint {
    this.override({ kind: 'increaseTime', seconds })
    return this.nextTimeOffset()
  }

  setTime(timestamp: bigint): bigint {
    this.override({ kind: 'setTime', timestamp })
    return this.nextTimeOffset()
  }

  setNextBaseFee(baseFee: bigint): void {
    this.override({ kind: 'nextBaseFee', baseFee })
  }

  setCoinbase(address: Uint8Array): void {
    this.override({ kind: 'coinbase', address })
  }

  setPrevRandao(value: Uint8Array): void {
    this.override({ kind: 'prevRandao', value })
  }

  /** The pool holds transactions to the new limit at once, as Hardhat's and Anvil's do (CheckTx too: app.nextBlockGasLimit). */
  setBlockGasLimit(gasLimit: bigint): void {
    this.override({ kind: 'gasLimit', gasLimit })
    this.pool.setBlockGasLimit(gasLimit)
  }

  private async set(op: DevOp): Promise<void> {
    await this.queue.push(op, true)
  }

  /** Queues a header override; nobody waits for its block (nor minds a revert dropping it). */
  private override(op: DevOp): void {
    this.queue.push(op, false).catch(() => {})
  }

  /** The clock's offset the next block will have: the committed one moved by the queued time operations (now as consensus time). */
  private nextTimeOffset(): bigint {
    let offset = this.app.currentDevSettings().timeOffset
    const now = BigInt(Math.floor(Date.now() / 1000))
    for (const op of this.queue.pendingOps()) {
      if (op.kind === 'increaseTime') offset += op.seconds
      else if (op.kind === 'setTime' || op.kind === 'nextTimestamp') offset = op.timestamp - now
    }
    return offset
  }
}
