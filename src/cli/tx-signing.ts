/**
 * One signing path for the transaction commands: fill what the user left out as geth's
 * `eth_sendTransaction` does (pending nonce, gas estimate, fees: tx-fees.ts), sign locally with the key
 * of `--from` (sender-key.ts), wipe the key, submit with eth_sendRawTransaction, and wait for the receipt.
 */
import { createUnsignedTx, type UnsignedTxFields } from '../evm/txs/unsigned-tx.js'
import { signHash, wipe } from '../crypto/index.js'
import { toChecksumAddress } from '../primitives/address.js'
import { bytesToHex, hexToBytes } from '../primitives/hex.js'
import { JsonRpcClientError, type HttpRpcClient } from '../rpc/client/index.js'
import { resolveSenderKey, type SenderOptions } from './sender-key.js'
import { fillFees, findPendingTx, type FeeRequest, type Fees } from './tx-fees.js'

/** How often a command polls for its receipt (ms). */
export const RECEIPT_POLL_MS = 200

type Hex = `0x${string}`

/** What the user chose; the rest is filled from the node. */
export interface TxRequest extends FeeRequest {
  /** Recipient; absent to create a contract from `data`. */
  to?: Uint8Array | undefined
  /** Wei (default 0). */
  value?: bigint | undefined
  data?: Uint8Array | undefined
  /** Gas limit (default eth_estimateGas). */
  gas?: bigint | undefined
  /** Nonce (default eth_getTransactionCount pending). */
  nonce?: bigint | undefined
}

/** A transaction the node's pool accepted. */
export interface SubmittedTx {
  hash: Hex
  /** EIP-55 sender. */
  from: Hex
  /** EIP-55 recipient; undefined for a creation. */
  to: Hex | undefined
  value: bigint
  data: Hex
  nonce: bigint
  gas: bigint
  /** EIP-1559 when the latest block has a base fee and --legacy is not set, legacy otherwise (geth's choice). */
  type: 'eip1559' | 'legacy'
  /** The fees it pays. */
  fees: Fees
  /** The hash of the sender's pending transaction with the same nonce it replaced (fees bumped automatically). */
  replaced: Hex | undefined
}

/** The call object of eth_estimateGas / eth_call for a request. */
function callOf(from: Hex, req: TxRequest, gas?: bigint): Record<string, string> {
  return {
    from,
    ...(req.to ? { to: bytesToHex(req.to) } : {}),
    value: `0x${(req.value ?? 0n).toString(16)}`,
    data: bytesToHex(req.data ?? new Uint8Array()),
    ...(gas !== undefined ? { gas: `0x${gas.toString(16)}` } : {}),
  }
}

/**
 * Resolves the sender's key, fills nonce, gas and fees (a call that would revert fails at the estimate
 * with the node's reason), signs, wipes the key and submits with eth_sendRawTransaction. A `nonce` of
 * one of the sender's pending transactions, without fees, replaces it with fees bumped as the pool
 * requires (tx-fees.ts).
 */
export async function submitTx(client: HttpRpcClient, sender: SenderOptions, req: TxRequest): Promise<SubmittedTx> {
  const key = await resolveSenderKey(sender)
  let raw: Uint8Array
  let filled: Pick<SubmittedTx, 'nonce' | 'gas' | 'type' | 'fees' | 'replaced'>
  try {
    const bumpable = req.nonce !== undefined && req.gasPrice === undefined && req.priorityFee === undefined
    const [chainId, nonce, gas, replaced] = await Promise.all([
      client.call<string>('eth_chainId').then(BigInt),
      req.nonce ?? client.call<string>('eth_getTransactionCount', [key.address, 'pending']).then(BigInt),
      req.gas ?? client.call<string>('eth_estimateGas', [callOf(key.address, req)]).then(BigInt),
      bumpable ? findPendingTx(client, key.address, req.nonce!) : undefined,
    ])
    const fees = await fillFees(client, req, replaced)
    const fields: UnsignedTxFields = {
      chainId,
      nonce,
      gasLimit: gas,
      to: req.to,
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(),
      accessList: undefined,
      ...(fees.type === 'eip1559'
        ? { gasPrice: undefined, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
        : { gasPrice: fees.gasPrice, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }),
    }
    // The node's own signing path (eth_sendTransaction): crypto/ decides which secp256k1 implementation signs.
    const unsigned = createUnsignedTx(fields)
    raw = unsigned.serializeSigned(signHash(unsigned.signingHash, key.privateKey))
    filled = { nonce, gas, type: fees.type, fees, replaced: replaced?.hash as Hex | undefined }
  } finally {
    wipe(key.privateKey)
  }
  const hash = await client.call<Hex>('eth_sendRawTransaction', [bytesToHex(raw)])
  return {
    hash,
    from: key.address,
    to: req.to ? (toChecksumAddress(req.to) as Hex) : undefined,
    value: req.value ?? 0n,
    data: bytesToHex(req.data ?? new Uint8Array()) as Hex,
    ...filled,
  }
}

/** A mined transaction's receipt. */
export interface MinedTx {
  blockNumber: number
  status: 0 | 1
  gasUsed: bigint
  /** The created contract (EIP-55), for a creation. */
  contractAddress: Hex | undefined
}

/** Polls eth_getTransactionReceipt every {@link RECEIPT_POLL_MS} until the tx is mined or `timeoutMs` passes. */
export async function waitForReceipt(client: HttpRpcClient, hash: Hex, timeoutMs: number): Promise<MinedTx> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const r = await client.call<{ blockNumber: string; status: string; gasUsed: string; contractAddress?: string | null } | null>(
      'eth_getTransactionReceipt',
      [hash],
    )
    if (r)
      return {
        blockNumber: Number(r.blockNumber),
        status: r.status === '0x1' ? 1 : 0,
        gasUsed: BigInt(r.gasUsed),
        contractAddress: r.contractAddress ? (toChecksumAddress(r.contractAddress) as Hex) : undefined,
      }
    if (Date.now() > deadline) throw new Error(`transaction ${hash} not mined within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS))
  }
}

/**
 * Why a failed tx failed, as geth's clients find out: replay the same call with eth_call on the state
 * before its block (`blockNumber - 1`; earlier txs of the same block are not replayed) and read the
 * node's error: `execution reverted: <reason>` gives the reason, other errors (out of gas...) their
 * message. Undefined when the replay succeeds.
 */
export async function getRevertReason(client: HttpRpcClient, tx: SubmittedTx, blockNumber: number): Promise<string | undefined> {
  const call = callOf(tx.from, { to: tx.to ? hexToBytes(tx.to) : undefined, value: tx.value, data: hexToBytes(tx.data) }, tx.gas)
  try {
    await client.call('eth_call', [call, `0x${Math.max(blockNumber - 1, 0).toString(16)}`])
    return undefined
  } catch (err) {
    if (!(err instanceof JsonRpcClientError)) throw err
    const reason = /^execution reverted: (.*)$/s.exec(err.rpcMessage)?.[1]
    if (reason !== undefined) return reason
    if (typeof err.data === 'string' && err.data.length > 2) return `${err.rpcMessage} (custom error ${err.data})`
    return err.rpcMessage
  }
}
