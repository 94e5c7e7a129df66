/**
 * Impersonation on a development chain (api/dev/impersonation.ts): the impersonated addresses, and
 * the submission of a transaction as sent by one of them, queued as a dev operation that names its
 * sender (evm/dev/impersonated-tx.ts). The nonce and funds are checked against the latest state
 * first, with geth's texts, so a transaction that could not run is refused rather than never mined.
 */
import type { ImpersonationBackend } from '../api/dev/index.js'
import { keccak256 } from '../crypto/index.js'
import type { EvmApplication } from '../evm/app.js'
import { encodeImpersonatedTx } from '../evm/dev/impersonated-tx.js'
import type { DevOpQueue } from '../evm/dev/op-queue.js'
import { parseRawTx } from '../evm/txs/raw-tx.js'
import type { UnsignedTxFields } from '../evm/txs/unsigned-tx.js'
import { bytesToHex, equalBytes, hexToBytes } from '../primitives/hex.js'
import { NodeError } from '../utils/errors.js'

export class NodeImpersonation implements ImpersonationBackend {
  private readonly addresses = new Set<string>()
  private auto = false

  constructor(
    private readonly app: EvmApplication,
    private readonly queue: DevOpQueue,
  ) {}

  impersonate(address: Uint8Array): void {
    this.addresses.add(bytesToHex(address))
  }

  stopImpersonating(address: Uint8Array): void {
    this.addresses.delete(bytesToHex(address))
  }

  setAutoImpersonate(on: boolean): void {
    this.auto = on
  }

  isImpersonated(address: Uint8Array): boolean {
    return this.auto || this.addresses.has(bytesToHex(address))
  }

  impersonated(): Uint8Array[] {
    return [...this.addresses].map(hexToBytes)
  }

  queuedNonce(address: Uint8Array): bigint | undefined {
    let next: bigint | undefined
    for (const op of this.queue.pendingOps()) {
      if (op.kind !== 'tx' || !equalBytes(op.from, address)) continue
      const nonce = parseRawTx(op.raw).nonce + 1n
      if (next === undefined || nonce > next) next = nonce
    }
    return next
  }

  async submit(from: Uint8Array, fields: UnsignedTxFields): Promise<Uint8Array> {
    if (fields.gasLimit > this.app.nextBlockGasLimit()) throw new NodeError('exceeds block gas limit')
    const account = await this.app.getAccount(from)
    const sender = bytesToHex(from)
    if (fields.nonce < account.nonce) {
      throw new NodeError(`nonce too low: address ${sender}, tx: ${fields.nonce} state: ${account.nonce}`)
    }
    const cost = fields.gasLimit * (fields.maxFeePerGas ?? fields.gasPrice ?? 0n) + fields.value
    if (account.balance < cost) {
      throw new NodeError(`insufficient funds for gas * price + value: address ${sender} have ${account.balance} want ${cost}`)
    }
    const raw = encodeImpersonatedTx(from, fields)
    // Answered with the hash at once, as eth_sendTransaction; a revert before its block drops it.
    this.queue.push({ kind: 'tx', from, raw }, true).catch(() => {})
    return keccak256(raw)
  }
}
