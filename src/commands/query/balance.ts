/** `nodectl query balance <address> [--block]`: an account's balance (eth_getBalance). */
import { Args, Flags } from '@oclif/core'
import { parseBlockNumber } from '../../cli/params.js'
import { resolveAddress } from '../../cli/address-names.js'
import { answerOr, keyValueTable } from '../../cli/render.js'
import { formatEther } from '../../primitives/ether.js'
import { RpcCommand } from '../../cli/rpc-command.js'

/** Result of `query balance`. */
export interface BalanceResult {
  address: string
  block: string
  /** Balance in wei, decimal. */
  wei: string
  /** Balance in ether, decimal. */
  ether: string
}

export default class QueryBalance extends RpcCommand {
  static override summary = 'Show an account balance.'
  static override description =
    'Reads the balance of an account with eth_getBalance at --block (default latest; older blocks work, the node keeps archive state).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '<%= config.bin %> <%= command.id %> 0xf39F...2266 --block 10 --json',
  ]
  static override args = { address: Args.string({ description: 'Account address (0x + 40 hex)', required: true }) }
  static override flags = { block: Flags.string({ summary: 'Block number or tag.', default: 'latest' }) }

  async run(): Promise<BalanceResult> {
    const { args, flags } = await this.parse(QueryBalance)
    const address = await resolveAddress(args.address, 'address', flags.home)
    const block = parseBlockNumber(flags.block)
    const wei = BigInt(await (await this.httpClient(flags)).call<string>('eth_getBalance', [address, block]))
    const result = { address, block, wei: wei.toString(), ether: formatEther(wei) }
    if (!this.jsonEnabled())
      this.log(
        answerOr(result.wei, () =>
          keyValueTable([
            ['address', address],
            ['block', flags.block],
            ['balance (ether)', result.ether],
            ['balance (wei)', result.wei],
          ]),
        ),
      )
    return result
  }
}
