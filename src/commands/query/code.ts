/** `nodectl query code <address> [--block]`: a contract's bytecode (eth_getCode). */
import { Args, Flags } from '@oclif/core'
import { parseBlockNumber } from '../../cli/params.js'
import { resolveAddress } from '../../cli/address-names.js'
import { answerOr, keyValueTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

/** Result of `query code`. */
export interface CodeResult {
  address: string
  block: string
  /** Runtime bytecode, `0x` for an account without code. */
  code: string
  /** Bytecode length in bytes. */
  size: number
}

export default class QueryCode extends RpcCommand {
  static override summary = 'Show the code at an address.'
  static override description = 'Reads the runtime bytecode stored at an address with eth_getCode ("0x" for an externally owned account).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0x5FbDB2315678afecb367f032d93F642f64180aa3',
    '<%= config.bin %> <%= command.id %> 0x5FbD...0aa3 --json',
  ]
  static override args = { address: Args.string({ description: 'Contract address (0x + 40 hex)', required: true }) }
  static override flags = { block: Flags.string({ summary: 'Block number or tag.', default: 'latest' }) }

  async run(): Promise<CodeResult> {
    const { args, flags } = await this.parse(QueryCode)
    const address = await resolveAddress(args.address, 'address', flags.home)
    const block = parseBlockNumber(flags.block)
    const code = await (await this.httpClient(flags)).call<string>('eth_getCode', [address, block])
    const result = { address, block, code, size: (code.length - 2) / 2 }
    // The code itself is never put in a box (a contract's would make it thousands of columns wide).
    if (!this.jsonEnabled())
      this.log(
        answerOr(code, () =>
          [
            keyValueTable([
              ['address', address],
              ['size (bytes)', result.size],
            ]),
            code,
          ].join('\n'),
        ),
      )
    return result
  }
}
