/**
 * `minimum-gas-prices` (app.toml, `--minimum-gas-prices`): Cosmos SDK writes it as decimal coins,
 * `<amount><denom>[,<amount><denom>…]` (`"0aevmos"`, `"0.0025uatom,0.1stake"`). nodectl has one fee
 * token, the EVM's wei, so it accepts:
 *   - a plain non-negative integer: wei (`"1000000000"`);
 *   - `<decimal amount><denom>` with denom `anodectl` or `wei` (1 wei each) or `gwei` (10^9 wei);
 *   - a comma list of such coins, holding at most one of these denominations (other Cosmos denoms
 *     are refused, since nothing could pay fees in them).
 * A fractional wei amount is rounded up: gas prices are whole wei, and a floor of 0.5 wei admits
 * exactly the prices a floor of 1 wei admits.
 */

/** The chain's base denomination: 1 anodectl = 1 wei (atto-units, as Evmos's `aevmos`). */
export const EVM_DENOM = 'anodectl'

/** Wei per unit of each accepted denomination. */
const DENOM_WEI: Record<string, bigint> = { [EVM_DENOM]: 1n, wei: 1n, gwei: 1_000_000_000n }

/** Cosmos SDK DecCoin: decimal amount then a denom (`sdk.ParseDecCoin`'s regular expressions). */
const DEC_COIN = /^([0-9]+(?:\.[0-9]+)?)([a-zA-Z][a-zA-Z0-9/:._-]{2,127})$/

/** Parses `minimum-gas-prices` to wei; "" means 0. Throws an Error naming the bad part. */
export function parseMinimumGasPrices(input: string): bigint {
  const text = input.trim()
  if (text === '') return 0n
  if (/^[0-9]+$/.test(text)) return BigInt(text)
  let found: bigint | undefined
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = DEC_COIN.exec(part)
    if (!m) throw new Error(`cannot parse "${part}": want a wei amount ("1000000000") or <amount><denom> ("0${EVM_DENOM}", "1gwei")`)
    const denom = m[2]!.toLowerCase()
    if (!Object.hasOwn(DENOM_WEI, denom)) throw new Error(`unknown denomination "${m[2]}" (known: ${Object.keys(DENOM_WEI).join(', ')})`)
    if (found !== undefined) throw new Error(`"${input}" gives more than one price for the fee token`)
    found = decimalTimes(m[1]!, DENOM_WEI[denom]!)
  }
  return found ?? 0n
}

/** Formats wei the way app.toml stores it: `<wei>anodectl`. */
export function formatMinimumGasPrices(wei: bigint): string {
  return `${wei}${EVM_DENOM}`
}

/** ceil(decimal × factor) for a non-negative decimal string. */
function decimalTimes(decimal: string, factor: bigint): bigint {
  const [whole, frac = ''] = decimal.split('.')
  const scale = 10n ** BigInt(frac.length)
  const scaled = BigInt(whole! + frac) * factor
  return (scaled + scale - 1n) / scale
}
