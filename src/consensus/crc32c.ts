/**
 * CRC-32C (Castagnoli), the checksum of CometBFT's WAL records (`crc32.MakeTable(crc32.Castagnoli)`).
 * Table-driven, reflected polynomial 0x82F63B78; check value of "123456789" is 0xE3069283.
 */

/** The reflected Castagnoli polynomial. */
const CASTAGNOLI_REFLECTED = 0x82f63b78

const TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256)
  for (let i = 0; i < 256; i++) {
    let c = i
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ CASTAGNOLI_REFLECTED : c >>> 1
    t[i] = c >>> 0
  }
  return t
})()

/** CRC-32C of `data` (of its bytes from `start` to `end`) as an unsigned 32-bit number. */
export function crc32c(data: Uint8Array, start = 0, end = data.length): number {
  let crc = 0xffffffff
  for (let i = start; i < end; i++) crc = TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}
