/**
 * Rebuilds a block's Ethereum header from the fields eth_getBlockByNumber returns, with ethers, as a
 * client that verifies a block does (OpenZeppelin's BlockHeader test, light clients): quantities as
 * minimal big-endian bytes, the optional fields of later forks when the block has them.
 */
import { encodeRlp, keccak256, toBeHex } from 'ethers'

/** The header fields of an eth block object (hex strings). */
export interface HeaderFieldsJson {
  parentHash: string
  sha3Uncles: string
  miner: string
  stateRoot: string
  transactionsRoot: string
  receiptsRoot: string
  logsBloom: string
  difficulty: string
  number: string
  gasLimit: string
  gasUsed: string
  timestamp: string
  extraData: string
  mixHash: string
  nonce: string
  baseFeePerGas?: string
  withdrawalsRoot?: string
  blobGasUsed?: string
  excessBlobGas?: string
  parentBeaconBlockRoot?: string
  requestsHash?: string
}

/** A QUANTITY as RLP wants it: no leading zero bytes, zero as the empty string. */
function quantity(q: string): string {
  return BigInt(q) === 0n ? '0x' : toBeHex(BigInt(q))
}

/** The header's RLP, rebuilt from the block object's fields. */
export function encodeHeaderJson(b: HeaderFieldsJson): string {
  const fields = [
    b.parentHash,
    b.sha3Uncles,
    b.miner,
    b.stateRoot,
    b.transactionsRoot,
    b.receiptsRoot,
    b.logsBloom,
    quantity(b.difficulty),
    quantity(b.number),
    quantity(b.gasLimit),
    quantity(b.gasUsed),
    quantity(b.timestamp),
    b.extraData,
    b.mixHash,
    b.nonce,
  ]
  const optional = [
    b.baseFeePerGas === undefined ? undefined : quantity(b.baseFeePerGas),
    b.withdrawalsRoot,
    b.blobGasUsed === undefined ? undefined : quantity(b.blobGasUsed),
    b.excessBlobGas === undefined ? undefined : quantity(b.excessBlobGas),
    b.parentBeaconBlockRoot,
    b.requestsHash,
  ]
  for (const f of optional) {
    if (f === undefined) break
    fields.push(f)
  }
  return encodeRlp(fields)
}

/** keccak256 of the rebuilt header: what the block's `hash` must be. */
export function hashHeaderJson(b: HeaderFieldsJson): string {
  return keccak256(encodeHeaderJson(b))
}
