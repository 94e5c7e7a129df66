/**
 * The blob of anvil_dumpState / anvil_loadState: gzip of JSON in the shape of Anvil's state dump,
 * `{"accounts": {"0x<address>": {"nonce": n, "balance": "0x…", "code": "0x…", "storage": {"0x<slot>": "0x<value>"}}}}`.
 * Loading takes that JSON gzipped or not, so Anvil's own dumps load too (their other top-level fields,
 * its blocks and transactions, are not read: loading merges accounts into the state).
 */
import { gunzipSync, gzipSync } from 'node:zlib'
import { bytesToHex, hexToBytes } from '../../primitives/hex.js'

export interface DumpedAccount {
  address: Uint8Array
  nonce: bigint
  balance: bigint
  code: Uint8Array
  /** [slot, value], 32-byte words, values not zero. */
  storage: [Uint8Array, Uint8Array][]
}

/** gzip's first two bytes (RFC 1952). */
const GZIP_MAGIC = [0x1f, 0x8b]

export function encodeStateDump(accounts: readonly DumpedAccount[]): Uint8Array {
  const json: Record<string, unknown> = {}
  for (const a of accounts) {
    json[bytesToHex(a.address)] = {
      nonce: Number(a.nonce),
      balance: `0x${a.balance.toString(16)}`,
      code: bytesToHex(a.code),
      storage: Object.fromEntries(a.storage.map(([slot, value]) => [bytesToHex(slot), bytesToHex(value)])),
    }
  }
  return gzipSync(JSON.stringify({ accounts: json }))
}

/** The accounts of a dump; throws an Error naming what is wrong. */
export function decodeStateDump(blob: Uint8Array): DumpedAccount[] {
  const gzipped = blob[0] === GZIP_MAGIC[0] && blob[1] === GZIP_MAGIC[1]
  const parsed = JSON.parse(Buffer.from(gzipped ? gunzipSync(blob) : blob).toString('utf8')) as { accounts?: unknown }
  if (typeof parsed.accounts !== 'object' || parsed.accounts === null) throw new Error('no accounts object')
  return Object.entries(parsed.accounts as Record<string, Record<string, unknown>>).map(([address, a]) => ({
    address: word(address, 20),
    nonce: BigInt((a.nonce as number | string | undefined) ?? 0),
    balance: BigInt((a.balance as string | undefined) ?? 0),
    code: hexToBytes((a.code as string | undefined) ?? '0x'),
    storage: Object.entries((a.storage as Record<string, string> | undefined) ?? {}).map(([slot, value]) => [
      word(slot, 32),
      word(value, 32),
    ]),
  }))
}

/** A hex quantity or word as `length` big-endian bytes. */
function word(hex: string, length: number): Uint8Array {
  const digits = hex.replace(/^0x/i, '')
  if (digits.length > length * 2 || !/^[0-9a-fA-F]*$/.test(digits)) throw new Error(`not a ${length}-byte value: ${hex}`)
  return hexToBytes(`0x${digits.padStart(length * 2, '0')}`)
}
