/** `nodectl query storage <address> <slot> [--block]`: one storage slot (eth_getStorageAt). */
import { Args, Flags } from '@oclif/core'
import { parseBlockNumber, parseSlot } from '../../cli/params.js'
import { resolveAddress } from '../../cli/address-names.js'
import { answerOr, keyValueTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

/** Result of `query storage`. */
export interface StorageResult {
  address: string
  slot: string
  block: string
  /** The 32-byte word stored there. */
  value: string
}

export default class QueryStorage extends RpcCommand {
  static override summary = 'Show a storage slot.'
  static override description = 'Reads one 32-byte storage word of a contract with eth_getStorageAt; the slot is a decimal number or hex.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0x5FbDB2315678afecb367f032d93F642f64180aa3 0',
    '<%= config.bin %> <%= command.id %> 0x5FbD...0aa3 0x2 --block 5 --json',
  ]
  static override args = {
    address: Args.string({ description: 'Contract address (0x + 40 hex)', required: true }),
    slot: Args.string({ description: 'Storage slot (decimal or hex)', required: true }),
  }
  static override flags = { block: Flags.string({ summary: 'Block number or tag.', default: 'latest' }) }

  async run(): Promise<StorageResult> {
    const { args, flags } = await this.parse(QueryStorage)
    const address = await resolveAddress(args.address, 'address', flags.home)
    const slot = parseSlot(args.slot)
    const block = parseBlockNumber(flags.block)
    const value = await (await this.httpClient(flags)).call<string>('eth_getStorageAt', [address, slot, block])
    if (!this.jsonEnabled())
      this.log(
        answerOr(value, () =>
          keyValueTable([
            ['address', address],
            ['slot', slot],
            ['block', flags.block],
            ['value', value],
          ]),
        ),
      )
    return { address, slot, block, value }
  }
}
