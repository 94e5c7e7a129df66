/**
 * Decoding of raw signed EVM transactions, done once at admission: the decoded record travels with
 * the raw bytes through pool and block, with its ethereumjs transaction (frozen, so ethereumjs caches
 * its hash and sender key). An admission of the common case reads the fields from the bytes
 * (fee-market-fields.ts) and builds the ethereumjs transaction only when something asks for it (a
 * block executing it, a trace), off the send's path.
 */
import { Capability, createTxFromRLP, type TxOptions, type TypedTransaction } from '@ethereumjs/tx'
import type { Common } from '@ethereumjs/common'
import { Address, bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { keccak256, packSignature, publicKeyToAddress, sha256 } from '../../crypto/index.js'
import { recoverOffThread } from '../../crypto/recovery-thread.js'
import { bytesToHex } from '../../primitives/hex.js'
import { SET_CODE_EIP, isCodeSizeUnlimited, recoveryIdOf, txCommonOf } from '../common.js'
import { assembleFeeMarketTx, seedTxHash, seedTxSenderPublicKey } from '../state/ethereumjs-patches.js'
import { readFeeMarketTx, type AccessListBytes, type FeeMarketFields } from './fee-market-fields.js'
import { signedFieldsHash, typedTxSigningHash } from './signing-hash.js'
import type { EvmTxType } from '../store/views.js'

export const TxType = { Legacy: 0, AccessList: 1, DynamicFee: 2, Blob: 3, SetCode: 4 } as const

/** What a record needs to build its ethereumjs transaction when first asked. */
interface TxSource {
  common: Common
  /** The sender's 64-byte public key, recovered at admission. */
  publicKey: Uint8Array
  /** The fields read at admission (views into the raw bytes), to assemble it from. */
  fields: FeeMarketFields
}

/**
 * A decoded raw transaction as it travels through pool and block; one class, so the pool's reads of it
 * stay monomorphic.
 */
export class DecodedTx {
  raw: Uint8Array
  /** EVM hash: Keccak-256 of the raw bytes. */
  hash: Uint8Array
  hashHex: string
  from: Uint8Array
  /** Lower-case 0x address of the sender. */
  fromHex: string
  type: EvmTxType
  nonce: bigint
  gasLimit: bigint
  /** Lower-case 0x address, undefined for a contract creation. */
  to: string | undefined
  value: bigint
  /** gasPrice for legacy and access-list transactions. */
  maxFeePerGas: bigint
  /** gasPrice for legacy and access-list transactions. */
  maxPriorityFeePerGas: bigint
  /** undefined for an unprotected (pre-EIP-155) legacy transaction. */
  chainId: bigint | undefined
  size: number
  /** Calldata, or the init code of a creation. */
  data: Uint8Array
  /** The EIP-2930 access list; empty for a legacy transaction. */
  accessList: AccessListBytes
  /** How many EIP-7702 authorizations a set-code transaction carries; 0 for the others. */
  authorizations: number
  private comet: Uint8Array | undefined
  private built: TypedTransaction | undefined
  private source: TxSource | undefined

  /** `cometHash` undefined: SHA-256 of `raw`, when first asked for (the block's records need it, the pool does not). */
  constructor(
    fields: Omit<DecodedTx, 'tx' | 'cometHash'> & { cometHash: Uint8Array | undefined },
    built: TypedTransaction | undefined,
    source: TxSource | undefined,
  ) {
    this.raw = fields.raw
    this.hash = fields.hash
    this.hashHex = fields.hashHex
    this.comet = fields.cometHash
    this.from = fields.from
    this.fromHex = fields.fromHex
    this.type = fields.type
    this.nonce = fields.nonce
    this.gasLimit = fields.gasLimit
    this.to = fields.to
    this.value = fields.value
    this.maxFeePerGas = fields.maxFeePerGas
    this.maxPriorityFeePerGas = fields.maxPriorityFeePerGas
    this.chainId = fields.chainId
    this.size = fields.size
    this.data = fields.data
    this.accessList = fields.accessList
    this.authorizations = fields.authorizations
    this.built = built
    this.source = source
  }

  /** Consensus hash: SHA-256 of the raw bytes (computed when first asked for). */
  get cometHash(): Uint8Array {
    this.comet ??= sha256(this.raw)
    return this.comet
  }

  /** The ethereumjs transaction, frozen (hash and sender cached); built on first use. */
  get tx(): TypedTransaction {
    if (this.built === undefined) {
      const { common, publicKey, fields } = this.source!
      this.built = buildFrozenTx(this.raw, fields, common, new Address(this.from), publicKey, this.hash)
      this.source = undefined
    }
    return this.built
  }
}

/** A raw transaction that cannot be used; the message follows geth's wording. */
export class TxDecodeError extends Error {}

/** Decodes and validates the envelope and signature of a raw transaction, recovering the sender once. */
export function decodeRawTx(raw: Uint8Array, common: Common): DecodedTx {
  return completeRawTx(raw, parseRawTx(raw, common), common)
}

/**
 * `decodeRawTx` with the sender's key recovered on the recovery thread (crypto/recovery-thread.ts),
 * so the main thread does not spend the ~70 µs of recovery; the same checks, errors and result. The
 * key goes into the transaction's sender cache, which `getSenderPublicKey` answers from: the thread
 * runs the binding the library's recovery would, on the same hash, signature and recovery id, and the
 * constructor has already refused a high s. A typed transaction's signing hash is read from its raw
 * bytes (signing-hash.ts). A `v` of neither recovery id, or a signature the thread cannot recover, is
 * left to the library's own check and error. A plain EIP-1559 call is read from its bytes without the
 * library (fee-market-fields.ts: what it reads, the library would decode to the same fields) and its
 * ethereumjs transaction built when first asked for; anything else, and any refusal, takes the
 * library's decoding here.
 */
export async function decodeRawTxOffThread(raw: Uint8Array, common: Common): Promise<DecodedTx> {
  const fields = readsFeeMarketTxs(common) ? readFeeMarketTx(raw, common.chainId()) : undefined
  if (fields !== undefined) {
    const hash = signedFieldsHash(raw, fields.payloadStart, fields.signedEnd)
    const publicKey = await recoverOffThread(hash, fields.signature, fields.recovery)
    if (publicKey !== undefined) return feeMarketTxOf(raw, fields, publicKey.subarray(1), common)
  }
  const tx = parseRawTx(raw, common)
  const { v, r, s } = tx
  const recovery = recoveryIdOf(v!, tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined)
  if (recovery !== undefined) {
    const signature = packSignature(bigIntToUnpaddedBytes(r!), bigIntToUnpaddedBytes(s!))
    const hash = typedTxSigningHash(raw) ?? tx.getMessageToVerifySignature()
    const publicKey = await recoverOffThread(hash, signature, recovery)
    if (publicKey !== undefined) seedTxSenderPublicKey(tx, publicKey.subarray(1))
  }
  return completeRawTx(raw, tx, common)
}

/**
 * Whether `common`'s rules decode a type-2 transaction as fee-market-fields.ts reads one: EIP-1559
 * active and no per-transaction gas cap (EIP-7825), which the quick reading does not check.
 */
function readsFeeMarketTxs(common: Common): boolean {
  return common.isActivatedEIP(1559) && !common.isActivatedEIP(7825)
}

/** The record of a type-2 transaction read quickly, its sender's key recovered; the ethereumjs object waits. */
function feeMarketTxOf(raw: Uint8Array, fields: FeeMarketFields, publicKey: Uint8Array, common: Common): DecodedTx {
  const from = publicKeyToAddress(publicKey)
  const hash = keccak256(raw)
  const record = {
    raw,
    hash,
    hashHex: bytesToHex(hash),
    cometHash: undefined,
    from,
    fromHex: bytesToHex(from),
    type: TxType.DynamicFee,
    nonce: fields.nonce,
    gasLimit: fields.gasLimit,
    to: bytesToHex(fields.to),
    value: fields.value,
    maxFeePerGas: fields.maxFeePerGas,
    maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
    chainId: common.chainId(),
    size: raw.length,
    data: fields.data,
    accessList: fields.accessList,
    authorizations: 0,
  }
  return new DecodedTx(record, undefined, { common, publicKey, fields })
}

/**
 * The ethereumjs transaction of `raw`, whose sender's key and hash are already known, frozen with them
 * as an admission that builds it at once leaves it: assembled from the fields read at admission
 * (ethereumjs-patches.ts `assembleFeeMarketTx`), or, where the installed constructor sets other
 * properties, decoded the library's way, its checks included.
 */
function buildFrozenTx(
  raw: Uint8Array,
  fields: FeeMarketFields,
  common: Common,
  sender: Address,
  publicKey: Uint8Array,
  hash: Uint8Array,
): TypedTransaction {
  const tx = assembleFeeMarketTx(fields, txOptionsOf(common)) ?? parseRawTx(raw, common)
  freezeWithSender(tx, sender, publicKey)
  seedTxHash(tx, hash)
  return tx
}

/** The options every transaction of `common`'s chain is built with (unfrozen: frozen once its sender is known). */
function txOptionsOf(common: Common): TxOptions & { common: Common } {
  return { common: txCommonOf(common), freeze: false, allowUnlimitedInitCodeSize: isCodeSizeUnlimited(common) }
}

/** The envelope checks and the decoding: a signed transaction, its sender not yet recovered. */
function parseRawTx(raw: Uint8Array, common: Common): TypedTransaction {
  if (raw.length === 0) throw new TxDecodeError('typed transaction too short')
  const first = raw[0]!
  if (first === TxType.Blob)
    throw new TxDecodeError('transaction type not supported: blob transactions (EIP-4844) are not accepted by this chain')
  if (first === TxType.SetCode && !common.isActivatedEIP(SET_CODE_EIP))
    throw new TxDecodeError('transaction type not supported: set-code transactions (EIP-7702) are not active (Cancun rules)')
  if (first < 0x7f && first > TxType.DynamicFee && first !== TxType.SetCode) throw new TxDecodeError('transaction type not supported')
  let tx: TypedTransaction
  try {
    tx = createTxFromRLP(raw, txOptionsOf(common)) as TypedTransaction
  } catch (err) {
    // ethereumjs refuses a typed tx for another chain while decoding; geth reports it as a bad signer.
    const otherChain = /not matching the derived chain ID (\d+)/.exec(describe(err))
    if (otherChain) throw new TxDecodeError(`invalid sender: invalid chain id for signer: have ${otherChain[1]} want ${common.chainId()}`)
    throw new TxDecodeError(`rlp: ${describe(err)}`)
  }
  if (!tx.isSigned()) throw new TxDecodeError('invalid transaction v, r, s values')
  return tx
}

/** Recovers the sender of a parsed transaction and completes its decoded form. */
function completeRawTx(raw: Uint8Array, tx: TypedTransaction, common: Common): DecodedTx {
  let sender: Address
  let publicKey: Uint8Array
  try {
    publicKey = tx.getSenderPublicKey()
    sender = new Address(publicKeyToAddress(publicKey))
  } catch (err) {
    throw new TxDecodeError(`invalid sender: ${describe(err)}`)
  }
  const from = sender.bytes
  freezeWithSender(tx, sender, publicKey)
  const type = tx.type as EvmTxType
  let chainId: bigint | undefined
  if (type === 0) {
    const legacy = tx as TypedTransaction & { v?: bigint }
    chainId = legacy.v !== undefined && legacy.v >= 35n ? (legacy.v - 35n) / 2n : undefined
  } else {
    chainId = (tx as TypedTransaction & { chainId: bigint }).chainId
  }
  if (chainId !== undefined && chainId !== common.chainId())
    throw new TxDecodeError(`invalid sender: invalid chain id for signer: have ${chainId} want ${common.chainId()}`)
  return decodedTxOf({ raw, tx, from, type, chainId })
}

/**
 * The DecodedTx of a frozen, sender-bound `tx` parsed from `raw`; `cometHash` is the consensus hash of
 * the bytes that carried it (a dev operation holding them; by default the raw bytes', computed when
 * first asked for).
 */
export function decodedTxOf(parts: {
  raw: Uint8Array
  tx: TypedTransaction
  from: Uint8Array
  type: EvmTxType
  chainId: bigint | undefined
  cometHash?: Uint8Array
}): DecodedTx {
  const { raw, tx, from, type, chainId, cometHash } = parts
  const feeTx = tx as TypedTransaction & { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; gasPrice?: bigint }
  // The EVM hash is Keccak-256 of the raw bytes; the decoder only takes canonical RLP, so this equals
  // ethereumjs' hash of its re-serialisation, which it would otherwise compute. Seed the tx's cache.
  const hash = keccak256(raw)
  seedTxHash(tx, hash)
  const lists = tx as TypedTransaction & { accessList?: AccessListBytes; authorizationList?: readonly unknown[] }
  const record = {
    raw,
    hash,
    hashHex: bytesToHex(hash),
    cometHash,
    from,
    fromHex: bytesToHex(from),
    type,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    to: tx.to ? bytesToHex(tx.to.bytes) : undefined,
    value: tx.value,
    maxFeePerGas: type >= TxType.DynamicFee ? feeTx.maxFeePerGas! : feeTx.gasPrice!,
    maxPriorityFeePerGas: type >= TxType.DynamicFee ? feeTx.maxPriorityFeePerGas! : feeTx.gasPrice!,
    chainId,
    size: raw.length,
    data: tx.data,
    accessList: lists.accessList ?? [],
    authorizations: lists.authorizationList?.length ?? 0,
  }
  return new DecodedTx(record, tx, undefined)
}

/**
 * Freezes `tx` (as ethereumjs does by default: only a frozen transaction caches its hash and sender
 * key) with the sender recovered once. ethereumjs recomputes the address on every `getSenderAddress()`
 * (a keccak of the public key, with its own JS keccak rather than the Common's), and runTx calls it
 * again: the transaction answers from `sender` instead, through a method of its own set before the
 * freeze (not an object inheriting from it: a transaction made a prototype costs a map transition
 * per transaction, and slower field reads afterwards).
 */
function freezeWithSender(tx: TypedTransaction, sender: Address, publicKey: Uint8Array): void {
  tx.getSenderAddress = () => sender
  Object.freeze(tx)
  seedTxSenderPublicKey(tx, publicKey)
}

function describe(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err)
  return msg.replace(/\s*\(tx type=.*$/s, '')
}

/** The tip a transaction pays per gas at `baseFee`, or undefined when its fee cap is below the base fee. */
export function effectiveTip(tx: Pick<DecodedTx, 'maxFeePerGas' | 'maxPriorityFeePerGas'>, baseFee: bigint): bigint | undefined {
  if (tx.maxFeePerGas < baseFee) return undefined
  const room = tx.maxFeePerGas - baseFee
  return room < tx.maxPriorityFeePerGas ? room : tx.maxPriorityFeePerGas
}
