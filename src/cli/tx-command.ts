/**
 * The signed-transaction commands, `tx send` and `send`: the flags they share (sender, value, gas, nonce,
 * cast's fee flags, --wait) and the submission itself, which fills a target (recipient and data) with
 * them, signs with --from, submits, and with --wait waits for the receipt and its revert reason.
 */
import { Flags, type Interfaces } from '@oclif/core'
import { formatEther } from '../primitives/ether.js'
import { isTerminal, keyValueTable } from './render.js'
import type { HttpRpcClient } from '../rpc/client/index.js'
import { RpcCommand } from './rpc-command.js'
import { EXIT_FAILURE } from './failure.js'
import { describeSenderError, senderOf, signerFlags } from './sender-key.js'
import { getRevertReason, submitTx, waitForReceipt, type TxRequest } from './tx-signing.js'
import { durationFlag } from './duration-flag.js'
import { parseValue } from './tx-values.js'

/** Result of `tx send`; the receipt fields are there with `--wait`. */
export interface TxSendResult {
  hash: string
  /** EIP-55 sender. */
  from: string
  /** Recipient; null for a contract creation. */
  to: string | null
  /** Wei, decimal. */
  value: string
  nonce: number
  /** Gas limit. */
  gas: string
  type: 'eip1559' | 'legacy'
  /** Legacy: the gas price; EIP-1559: the fee cap (wei, decimal), as cast's --gas-price. */
  gasPrice: string
  /** EIP-1559 tip (wei, decimal); null for a legacy transaction. */
  priorityGasPrice: string | null
  /** The pending transaction with the same nonce this one replaced (fees bumped automatically); null when none. */
  replaced: string | null
  /** 1 success, 0 failed (with --wait). */
  status?: 0 | 1
  blockNumber?: number
  /** Decimal (with --wait). */
  gasUsed?: string
  /** The created contract (with --wait); null when none. */
  contractAddress?: string | null
  /** Why it failed, from an eth_call replay at the parent block (with --wait); null when it succeeded or no reason was found. */
  revertReason?: string | null
}

/** Every flag of a signed-transaction command but its target (`--to`, `--data`). */
export const txFlags = {
  from: Flags.string({
    summary: 'Sender: key-store name or address (any letter case), or a private key (64 hex digits) or a file holding one.',
    required: true,
  }),
  value: Flags.string({ summary: 'Amount: 1.5ether, 1000gwei, 21000wei or a plain integer (wei).', default: '0' }),
  gas: Flags.integer({ summary: 'Gas limit [default: eth_estimateGas].', min: 1 }),
  nonce: Flags.integer({
    summary: 'Nonce [default: the pending nonce of --from]; the nonce of a pending transaction of --from replaces it.',
    min: 0,
  }),
  'gas-price': Flags.string({
    summary:
      'Legacy: the gas price; EIP-1559: the max fee per gas (fee cap), as cast. 30gwei or wei [default: 2 × base fee + tip, or eth_gasPrice].',
    aliases: ['max-fee'],
  }),
  'priority-gas-price': Flags.string({
    summary: 'EIP-1559 max priority fee per gas (tip), as cast. 2gwei or wei [default: eth_maxPriorityFeePerGas].',
    aliases: ['priority-fee'],
  }),
  legacy: Flags.boolean({ summary: 'Send a legacy (type 0) transaction even where the chain has a base fee, as cast.' }),
  wait: Flags.boolean({ summary: 'Wait for the receipt and print it.' }),
  timeout: durationFlag({ name: 'timeout', summary: 'How long --wait waits for the receipt.', default: '60s' }),
  ...signerFlags,
}

type TxFlags = Interfaces.InferredFlags<typeof txFlags & typeof RpcCommand.baseFlags>

/** A command that signs with --from and submits one transaction (see the file comment). */
export abstract class TxCommand extends RpcCommand {
  /**
   * Fills `target` (recipient and data, from flags or, for `send`, a signature) with the value, gas,
   * nonce and fee flags, signs with --from, submits, and with --wait waits for the receipt.
   */
  protected async submit(flags: TxFlags, target: Pick<TxRequest, 'to' | 'data'>): Promise<TxSendResult> {
    const req: TxRequest = {
      ...target,
      value: parseValue(flags.value),
      gas: flags.gas === undefined ? undefined : BigInt(flags.gas),
      nonce: flags.nonce === undefined ? undefined : BigInt(flags.nonce),
      gasPrice: flags['gas-price'] === undefined ? undefined : parseValue(flags['gas-price'], '--gas-price'),
      priorityFee: flags['priority-gas-price'] === undefined ? undefined : parseValue(flags['priority-gas-price'], '--priority-gas-price'),
      legacy: flags.legacy,
    }
    const client = await this.httpClient(flags)
    const sent = await submitTx(client, senderOf(flags), req)
    const result: TxSendResult = {
      hash: sent.hash,
      from: sent.from,
      to: sent.to ?? null,
      value: sent.value.toString(),
      nonce: Number(sent.nonce),
      gas: sent.gas.toString(),
      type: sent.type,
      gasPrice: (sent.fees.type === 'legacy' ? sent.fees.gasPrice : sent.fees.maxFeePerGas).toString(),
      priorityGasPrice: sent.fees.type === 'legacy' ? null : sent.fees.maxPriorityFeePerGas.toString(),
      replaced: sent.replaced ?? null,
    }
    if (sent.replaced && !this.jsonEnabled())
      this.logToStderr(`replacing pending transaction ${sent.replaced} (nonce ${sent.nonce}) with fees at least 10% higher`)
    if (!flags.wait) {
      if (!this.jsonEnabled()) this.log(sent.hash)
      return result
    }
    if (!this.jsonEnabled()) this.logToStderr(await this.waitingLine(client, sent.hash, sent.from, sent.nonce))
    const mined = await waitForReceipt(client, sent.hash, flags.timeout)
    const revertReason = mined.status === 1 ? null : ((await getRevertReason(client, sent, mined.blockNumber)) ?? null)
    Object.assign(result, {
      status: mined.status,
      blockNumber: mined.blockNumber,
      gasUsed: mined.gasUsed.toString(),
      contractAddress: mined.contractAddress ?? null,
      revertReason,
    })
    // Into a pipe the hash alone, as without --wait (`tx=$(nodectl tx send … --wait)`); the receipt on a terminal.
    if (!this.jsonEnabled()) this.log(isTerminal() ? renderReceipt(result) : sent.hash)
    if (mined.status !== 1) {
      const line = `transaction ${sent.hash} failed in block ${mined.blockNumber}${revertReason ? `: ${revertReason}` : ''}`
      if (!this.jsonEnabled()) this.error(line, { exit: EXIT_FAILURE })
      process.exitCode = EXIT_FAILURE
    }
    return result
  }

  /**
   * What --wait says at once: the hash, and why the transaction may wait long: a nonce above the
   * account's next one (the pending nonce counts the pool's executable transactions) sits queued
   * until the gap fills.
   */
  private async waitingLine(client: HttpRpcClient, hash: string, from: string, nonce: bigint): Promise<string> {
    const next = BigInt(await client.call<string>('eth_getTransactionCount', [from, 'pending']))
    if (nonce <= next) return `sent ${hash}; waiting for its receipt…`
    const missing = nonce - next === 1n ? `nonce ${next}` : `nonces ${next}–${nonce - 1n}`
    return `sent ${hash}; it is queued: its nonce ${nonce} waits for ${missing} of ${from} to be sent first (waiting for its receipt…)`
  }

  protected override describeError(err: unknown): string | undefined {
    return describeSenderError(err) ?? super.describeError(err)
  }
}

/** The human form of a waited-for result. */
function renderReceipt(r: TxSendResult): string {
  const rows: [string, unknown][] = [
    ['hash', r.hash],
    ['status', r.status === 1 ? 'success' : 'failed'],
    ['block', r.blockNumber],
    ['from', r.from],
    [r.to === null ? 'contract' : 'to', r.to ?? r.contractAddress],
    ['value (ether)', formatEther(BigInt(r.value))],
    ['gas used', `${r.gasUsed} of ${r.gas}`],
  ]
  if (r.revertReason) rows.push(['revert reason', r.revertReason])
  return keyValueTable(rows)
}
