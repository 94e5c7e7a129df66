/** The QUANTITY encoding of the Ethereum JSON-RPC (the spec's Encodings table). */

/** Encodes an integer as a compact `0x` QUANTITY (`0x0` for zero). */
export function toQuantity(value: bigint | number): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`not a non-negative integer: ${value}`)
    return '0x' + value.toString(16)
  }
  if (value < 0n) throw new Error(`negative quantity: ${value}`)
  return '0x' + value.toString(16)
}
