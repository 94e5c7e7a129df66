/** Ether amounts for people: wei as a decimal number of ether. */

/** 1 ether = 10^18 wei. */
const WEI_PER_ETHER = 10n ** 18n

/** Wei as ether with up to 18 decimals, trailing zeros of the fraction dropped (10^22 → "10000", 1.5 × 10^18 → "1.5"). */
export function formatEther(wei: bigint): string {
  const sign = wei < 0n ? '-' : ''
  const abs = wei < 0n ? -wei : wei
  const fraction = (abs % WEI_PER_ETHER).toString().padStart(18, '0').replace(/0+$/, '')
  return `${sign}${abs / WEI_PER_ETHER}${fraction ? `.${fraction}` : ''}`
}
