/**
 * `miner_setGasPrice` "changes the configuration file and requires a node restart" (the spec):
 * this rewrites app.toml's `minimum-gas-prices` line in place, keeping every comment and other key.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { formatMinimumGasPrices } from './gas-price.js'
import { formatTomlValue } from './render-toml.js'

/** The top-level `minimum-gas-prices = …` line (before the first table). */
const KEY_LINE = /^minimum-gas-prices\s*=.*$/m

/** Sets `minimum-gas-prices` in the app.toml at `path` to `wei` (written as `<wei>anodectl`). */
export async function saveMinimumGasPrices(path: string, wei: bigint): Promise<void> {
  if (wei < 0n) throw new Error('negative gas price')
  let text = ''
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const line = `minimum-gas-prices = ${formatTomlValue(formatMinimumGasPrices(wei))}`
  const firstTable = text.search(/^\s*\[/m)
  const head = firstTable < 0 ? text : text.slice(0, firstTable)
  const tail = firstTable < 0 ? '' : text.slice(firstTable)
  const updated = KEY_LINE.test(head) ? head.replace(KEY_LINE, line) + tail : `${line}\n\n${text}`
  await writeFile(path, updated)
}
