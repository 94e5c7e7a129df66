/**
 * Parameter codecs of the dev methods that take numbers the way Anvil and Hardhat take them: a hex
 * string with or without leading zeros (viem sends minimal quantities, ethers' helpers sometimes
 * 32-byte words) or a JSON integer (Hardhat's evm_increaseTime, web3 scripts).
 */
import { DecodeError, isHexDigits, jsonKind, type Codec } from '../../rpc/codecs.js'

/** An unsigned integer of at most `maxBits` bits, as hex (leading zeros allowed) or a non-negative JSON integer. */
export function looseUint(maxBits: 64 | 256): Codec<bigint> {
  const goType = maxBits === 64 ? 'uint64' : 'U256'
  return (value) => {
    let n: bigint
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) throw new DecodeError(`number ${value}`, goType)
      n = BigInt(value)
    } else if (typeof value === 'string') {
      if (!/^0[xX]/.test(value) || value.length === 2 || !isHexDigits(value, 2)) throw new DecodeError('invalid hex number', goType)
      n = BigInt(`0x${value.slice(2)}`)
    } else {
      throw new DecodeError(jsonKind(value), goType)
    }
    if (n >= 1n << BigInt(maxBits)) throw new DecodeError(`number wider than ${maxBits} bits`, goType)
    return n
  }
}

/** A 256-bit unsigned integer (balances, base fees). */
export const looseUint256 = looseUint(256)

/** A 64-bit unsigned integer (nonces, timestamps, seconds, gas). */
export const looseUint64 = looseUint(64)

/** A storage slot: a 256-bit number, as a 32-byte big-endian word. */
export const storageSlot: Codec<Uint8Array> = (value) => {
  const n = looseUint256(value)
  const word = new Uint8Array(32)
  let rest = n
  for (let i = 31; i >= 0 && rest > 0n; i--) {
    word[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
  return word
}
