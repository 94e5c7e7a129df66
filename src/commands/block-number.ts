/** `nodectl block-number`: the latest block number in decimal (eth_blockNumber), as `cast block-number`. */
import { RpcCommand } from '../cli/rpc-command.js'

export default class BlockNumber extends RpcCommand {
  static override summary = 'Print the latest block number (eth_blockNumber), in decimal.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<{ blockNumber: number }> {
    const { flags } = await this.parse(BlockNumber)
    const blockNumber = Number(await (await this.httpClient(flags)).call<string>('eth_blockNumber'))
    if (!this.jsonEnabled()) this.log(String(blockNumber))
    return { blockNumber }
  }
}
