/**
 * What miner_setGasPrice and miner_setEtherbase change on a running node, and where it is kept:
 * - the minimum gas price goes to app.toml's `minimum-gas-prices` (the spec: "changes the
 *   configuration file"), unless `--minimum-gas-prices` or its environment variable set it at start:
 *   that value wins at every start, so writing app.toml would not take effect (the spec: "the node
 *   start must not use the flag"); the running node applies the new price either way;
 * - the etherbase (the fee recipient this validator declares in its proposals, see
 *   evm/txs/fee-recipient-tx.ts) goes to `<home>/data/fee_recipient.json`, read at start.
 */
import { readFile } from 'node:fs/promises'
import { saveMinimumGasPrices } from '../config/save-min-gas-price.js'
import { parseAddress } from '../primitives/address.js'
import { bytesToHex } from '../primitives/hex.js'
import { writeFileAtomic } from '../utils/files.js'
import type { Logger } from '../utils/logger.js'

/** Name of the etherbase file in the data directory. */
export const FEE_RECIPIENT_FILE = 'fee_recipient.json'

export interface MinerSettingsOptions {
  /** app.toml, whose `minimum-gas-prices` setMinGasPrice rewrites. */
  appTomlPath: string
  /** The minimum gas price came from a flag or the environment (NodeConfig.minGasPriceFromFlag). */
  minGasPriceFromFlag: boolean
  /** The etherbase file (`<home>/data/fee_recipient.json`). */
  feeRecipientPath: string
  logger: Logger
}

export class MinerSettings {
  private constructor(
    private readonly opts: MinerSettingsOptions,
    private current: Uint8Array | undefined,
  ) {}

  /** Reads the etherbase saved by an earlier miner_setEtherbase, if any. */
  static async load(opts: MinerSettingsOptions): Promise<MinerSettings> {
    return new MinerSettings(opts, await loadFeeRecipient(opts.feeRecipientPath))
  }

  /** The fee recipient this validator declares in its proposals; undefined: the genesis default. */
  get etherbase(): Uint8Array | undefined {
    return this.current
  }

  /** Saves `address` and uses it from the next proposal on. */
  async setEtherbase(address: Uint8Array): Promise<void> {
    await saveFeeRecipient(this.opts.feeRecipientPath, address)
    this.current = address.slice()
    this.opts.logger.info('fee recipient set', { etherbase: bytesToHex(address), file: this.opts.feeRecipientPath })
  }

  /** Writes `wei` to app.toml, unless a flag or the environment set the price (then logs why not). */
  async saveMinGasPrice(wei: bigint): Promise<void> {
    if (this.opts.minGasPriceFromFlag) {
      this.opts.logger.warn(
        'minimum gas price applied but not saved to app.toml: --minimum-gas-prices (flag or environment) sets it at every start',
        { minGasPrice: wei },
      )
      return
    }
    await saveMinimumGasPrices(this.opts.appTomlPath, wei)
    this.opts.logger.info('minimum gas price applied and saved to app.toml', { minGasPrice: wei, file: this.opts.appTomlPath })
  }
}

/** The saved etherbase; undefined when the file does not exist. Throws naming the file when it is invalid. */
export async function loadFeeRecipient(path: string): Promise<Uint8Array | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
  try {
    return parseAddress((JSON.parse(text) as { fee_recipient?: unknown }).fee_recipient)
  } catch (err) {
    throw new Error(`${path}: invalid fee_recipient: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/** Writes the etherbase file atomically. */
export async function saveFeeRecipient(path: string, address: Uint8Array): Promise<void> {
  await writeFileAtomic(path, JSON.stringify({ fee_recipient: bytesToHex(address) }, null, 2) + '\n', 0o644)
}
