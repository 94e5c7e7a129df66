/** `nodectl estimate <to> "transfer(address,uint256)" 0x… 5`: the gas a call needs (eth_estimateGas), as `cast estimate`. */
import { Flags } from '@oclif/core'
import { callRequestOf, readCallTarget } from '../cli/abi-call.js'
import { parseBlockNumber } from '../cli/params.js'
import { RpcCommand } from '../cli/rpc-command.js'

export default class Estimate extends RpcCommand {
  static override summary = 'Estimate the gas of a call or transaction (eth_estimateGas), as cast estimate.'
  static override description =
    'Encodes the call as "nodectl call" does (a signature and its arguments, or --data) and prints the gas eth_estimateGas answers, in decimal.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0x5FbD…0aa3 "transfer(address,uint256)" 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 5 --from 0xf39F…2266',
    '<%= config.bin %> <%= command.id %> 0x7099…79C8 --value 1ether',
  ]
  static override strict = false
  static override args = {}
  static override usage = '<%= command.id %> <to> [sig] [args...]'
  static override flags = {
    data: Flags.string({ summary: 'Call data instead of a signature: 0x hex, or @file holding it.' }),
    from: Flags.string({ summary: 'Sender address [default: none].' }),
    value: Flags.string({ summary: 'Value sent: 1.5ether, 1000gwei or wei.' }),
    block: Flags.string({ summary: 'Block number or tag.', default: 'latest' }),
  }

  async run(): Promise<{ gas: string }> {
    const { argv, flags } = await this.parse(Estimate)
    const target = await readCallTarget(argv as string[], flags.data, flags.home)
    const request = await callRequestOf(target, flags)
    const gas = BigInt(await (await this.httpClient(flags)).call<string>('eth_estimateGas', [request, parseBlockNumber(flags.block)]))
    if (!this.jsonEnabled()) this.log(gas.toString())
    return { gas: gas.toString() }
  }
}
