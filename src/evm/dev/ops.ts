/**
 * Dev operations: the state changes of a development chain that are not signed transactions (a set,
 * an impersonated transaction, a header override), carried in consensus blocks like transactions so
 * the block store, WAL replay, a restart and the EVM view all reproduce them.
 *
 * Encoding: `DEV_OP_PREFIX` (0xbe ‖ "dev") followed by the RLP of `[kind, ...fields]`. The first byte
 * can never start a signed EVM transaction (EIP-2718 typed envelopes start with 0x00–0x7f, legacy ones
 * with an RLP list ≥ 0xc0; 0x80–0xbf is an RLP string prefix), nor the fee-recipient declaration (0xad),
 * so a chain that is not a dev chain refuses the bytes as an undecodable transaction.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigint, bytesToUtf8, equalBytes, utf8ToBytes } from '../../primitives/hex.js'

/** 0xbe ‖ "dev": the first four bytes of every dev operation. */
export const DEV_OP_PREFIX = Uint8Array.of(0xbe, 0x64, 0x65, 0x76)

export type DevOp =
  | { kind: 'setBalance'; address: Uint8Array; balance: bigint }
  | { kind: 'setCode'; address: Uint8Array; code: Uint8Array }
  | { kind: 'setNonce'; address: Uint8Array; nonce: bigint }
  | { kind: 'setStorageAt'; address: Uint8Array; slot: Uint8Array; value: Uint8Array }
  /** The exact timestamp of the block carrying it; later blocks continue from it. */
  | { kind: 'nextTimestamp'; timestamp: bigint }
  /** Moves the chain's clock forward by `seconds` from the block carrying it. */
  | { kind: 'increaseTime'; seconds: bigint }
  /** Sets the chain's clock so that the block carrying it has `timestamp` (always after its parent). */
  | { kind: 'setTime'; timestamp: bigint }
  /** The base fee of the block carrying it (later blocks follow EIP-1559 from it). */
  | { kind: 'nextBaseFee'; baseFee: bigint }
  /** The coinbase of the block carrying it and of every later one. */
  | { kind: 'coinbase'; address: Uint8Array }
  /** PREVRANDAO (mixHash) of the block carrying it. */
  | { kind: 'prevRandao'; value: Uint8Array }
  /** The gas limit of the block carrying it and of every later one. */
  | { kind: 'gasLimit'; gasLimit: bigint }
  /** A transaction executed as sent by `from` without its signature (impersonation, eth_sendUnsignedTransaction). */
  | { kind: 'tx'; from: Uint8Array; raw: Uint8Array }
  /** A block asked for (evm_mine): no change; a block carries at most one. */
  | { kind: 'mine' }

export type DevOpKind = DevOp['kind']

/** Kinds that change the header of the block carrying them, not the state. */
export const HEADER_OP_KINDS: ReadonlySet<DevOpKind> = new Set([
  'nextTimestamp',
  'increaseTime',
  'setTime',
  'nextBaseFee',
  'coinbase',
  'prevRandao',
  'gasLimit',
])

/** Bytes that start like a dev operation but do not decode as one. */
export class DevOpDecodeError extends Error {}

const ADDRESS_BYTES = 20
const WORD_BYTES = 32

export function encodeDevOp(op: DevOp): Uint8Array {
  const body = RLP.encode([utf8ToBytes(op.kind), ...fieldsOf(op)])
  const out = new Uint8Array(DEV_OP_PREFIX.length + body.length)
  out.set(DEV_OP_PREFIX)
  out.set(body, DEV_OP_PREFIX.length)
  return out
}

function fieldsOf(op: DevOp): (Uint8Array | bigint)[] {
  switch (op.kind) {
    case 'setBalance':
      return [op.address, op.balance]
    case 'setCode':
      return [op.address, op.code]
    case 'setNonce':
      return [op.address, op.nonce]
    case 'setStorageAt':
      return [op.address, op.slot, op.value]
    case 'nextTimestamp':
    case 'setTime':
      return [op.timestamp]
    case 'increaseTime':
      return [op.seconds]
    case 'nextBaseFee':
      return [op.baseFee]
    case 'coinbase':
      return [op.address]
    case 'prevRandao':
      return [op.value]
    case 'gasLimit':
      return [op.gasLimit]
    case 'tx':
      return [op.from, op.raw]
    case 'mine':
      return []
  }
}

/** Whether `raw` starts with the dev-operation prefix (it may still be malformed). */
export function isDevOp(raw: Uint8Array): boolean {
  return raw.length > DEV_OP_PREFIX.length && equalBytes(raw.subarray(0, DEV_OP_PREFIX.length), DEV_OP_PREFIX)
}

/** Decodes a dev operation; throws DevOpDecodeError when `raw` is not a well-formed one. */
export function decodeDevOp(raw: Uint8Array): DevOp {
  if (!isDevOp(raw)) throw new DevOpDecodeError('not a dev operation')
  let decoded: unknown
  try {
    decoded = RLP.decode(raw.subarray(DEV_OP_PREFIX.length))
  } catch (err) {
    throw new DevOpDecodeError(`dev operation: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (!Array.isArray(decoded) || decoded.length === 0 || !decoded.every((f) => f instanceof Uint8Array)) {
    throw new DevOpDecodeError('dev operation: not a list of byte strings')
  }
  const [kindBytes, ...f] = decoded as Uint8Array[]
  const kind = bytesToUtf8(kindBytes!)
  const want = (n: number): void => {
    if (f.length !== n) throw new DevOpDecodeError(`dev operation ${kind}: ${f.length} fields, want ${n}`)
  }
  const address = (b: Uint8Array): Uint8Array => sized(kind, b, ADDRESS_BYTES)
  switch (kind) {
    case 'setBalance':
      want(2)
      return { kind, address: address(f[0]!), balance: bytesToBigint(f[1]!) }
    case 'setCode':
      want(2)
      return { kind, address: address(f[0]!), code: f[1]! }
    case 'setNonce':
      want(2)
      return { kind, address: address(f[0]!), nonce: bytesToBigint(f[1]!) }
    case 'setStorageAt':
      want(3)
      return { kind, address: address(f[0]!), slot: sized(kind, f[1]!, WORD_BYTES), value: sized(kind, f[2]!, WORD_BYTES) }
    case 'nextTimestamp':
    case 'setTime':
      want(1)
      return { kind, timestamp: bytesToBigint(f[0]!) }
    case 'increaseTime':
      want(1)
      return { kind, seconds: bytesToBigint(f[0]!) }
    case 'nextBaseFee':
      want(1)
      return { kind, baseFee: bytesToBigint(f[0]!) }
    case 'coinbase':
      want(1)
      return { kind, address: address(f[0]!) }
    case 'prevRandao':
      want(1)
      return { kind, value: sized(kind, f[0]!, WORD_BYTES) }
    case 'gasLimit':
      want(1)
      return { kind, gasLimit: bytesToBigint(f[0]!) }
    case 'tx':
      want(2)
      return { kind, from: address(f[0]!), raw: f[1]! }
    case 'mine':
      want(0)
      return { kind }
    default:
      throw new DevOpDecodeError(`unknown dev operation ${JSON.stringify(kind)}`)
  }
}

function sized(kind: string, b: Uint8Array, length: number): Uint8Array {
  if (b.length !== length) throw new DevOpDecodeError(`dev operation ${kind}: a field of ${b.length} bytes, want ${length}`)
  return b
}
