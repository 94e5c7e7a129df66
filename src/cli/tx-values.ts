import { base64ToBytes, hexToBytes } from '../primitives/hex.js'
import { UsageError } from './failure.js'

/** A 32-byte ed25519 public key given as hex (0x optional) or base64; errors name `label` (default `--pubkey`). */
export function parseEd25519PubKey(input: string, label = '--pubkey'): Uint8Array {
  const s = input.trim()
  let key: Uint8Array | undefined
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(s)) key = hexToBytes(s.startsWith('0x') ? s : `0x${s}`)
  else if (/^[A-Za-z0-9+/]{43}=?$/.test(s)) key = base64ToBytes(s)
  if (key?.length !== 32) throw new UsageError(`invalid ${label} "${input}": want a 32-byte ed25519 public key in base64 or hex`)
  return key
}

/** Decimals of each unit `--value` accepts (wei has none). */
const UNIT_DECIMALS = { ether: 18, gwei: 9, wei: 0 } as const
const MAX_UINT256 = (1n << 256n) - 1n

/**
 * `--value`: `1.5ether`, `1000gwei`, `21000wei` or a plain integer (wei); decimals up to the unit's precision.
 * Errors name `label` (default `--value`).
 */
export function parseValue(input: string, label = '--value'): bigint {
  const m = /^(\d+)(?:\.(\d+))?\s*([a-zA-Z]*)$/.exec(input.trim())
  const unit = m?.[3]?.toLowerCase() || 'wei'
  const want = 'want an amount such as 1.5ether, 1000gwei or 21000 (wei)'
  if (!m || !(unit in UNIT_DECIMALS)) throw new UsageError(`invalid ${label} "${input}": ${want}`)
  const decimals = UNIT_DECIMALS[unit as keyof typeof UNIT_DECIMALS]
  const fraction = m[2] ?? ''
  if (fraction.length > decimals)
    throw new UsageError(
      `invalid ${label} "${input}": ${decimals === 0 ? 'wei is indivisible' : `${unit} has at most ${decimals} decimals`}`,
    )
  const wei = BigInt(m[1]!) * 10n ** BigInt(decimals) + (fraction ? BigInt(fraction.padEnd(decimals, '0')) : 0n)
  if (wei > MAX_UINT256) throw new UsageError(`invalid ${label} "${input}": more than 2^256-1 wei`)
  return wei
}

/** `--data`: hex bytes, 0x optional. */
export function parseData(input: string): Uint8Array {
  if (!/^(0x)?([0-9a-fA-F]{2})*$/.test(input))
    throw new UsageError(`invalid --data: want hex bytes (0x followed by an even number of hex digits)`)
  return hexToBytes(input.startsWith('0x') ? input : `0x${input}`)
}
