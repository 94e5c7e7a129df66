/** `nodectl query nonce <address> [--block]`: an account's nonce (eth_getTransactionCount). */
import { Args, Flags } from '@oclif/core'
import { parseBlockNumber } from '../../cli/params.js'
import { resolveAddress } from '../../cli/address-names.js'
import { answerOr, keyValueTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

/** Result of `query nonce`. */
export interface NonceResult {
  address: string
  block: string
  nonce: number
}

export default class QueryNonce extends RpcCommand {
  static override summary = 'Show an account nonce.'
  static override description =
    'Reads the number of transactions sent from an account with eth_getTransactionCount at --block (default latest; "pending" counts ' +
    'the pool too).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '<%= config.bin %> <%= command.id %> 0xf39F...2266 --block pending --json',
  ]
  static override args = { address: Args.string({ description: 'Account address (0x + 40 hex)', required: true }) }
  static override flags = { block: Flags.string({ summary: 'Block number or tag.', default: 'latest' }) }

  async run(): Promise<NonceResult> {
    const { args, flags } = await this.parse(QueryNonce)
    const address = await resolveAddress(args.address, 'address', flags.home)
    const block = parseBlockNumber(flags.block)
    const nonce = Number(await (await this.httpClient(flags)).call<string>('eth_getTransactionCount', [address, block]))
    if (!this.jsonEnabled())
      this.log(
        answerOr(String(nonce), () =>
          keyValueTable([
            ['address', address],
            ['block', flags.block],
            ['nonce', nonce],
          ]),
        ),
      )
    return { address, block, nonce }
  }
}
