/** `nodectl chain-id`: the EVM chain id in decimal (eth_chainId), as `cast chain-id`. */
import { RpcCommand } from '../cli/rpc-command.js'

export default class ChainId extends RpcCommand {
  static override summary = 'Print the EVM chain id (eth_chainId), in decimal.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --node http://127.0.0.1:8545 --json',
  ]

  async run(): Promise<{ chainId: string }> {
    const { flags } = await this.parse(ChainId)
    const chainId = BigInt(await (await this.httpClient(flags)).call<string>('eth_chainId')).toString()
    if (!this.jsonEnabled()) this.log(chainId)
    return { chainId }
  }
}
