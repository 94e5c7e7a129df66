/**
 * `nodectl send <to> "transfer(address,uint256)" 0x… 5 --from alice`: a contract call as a signed
 * transaction, as `cast send` — `tx send` with the call data encoded from a signature.
 */
import { Flags } from '@oclif/core'
import { readCallTarget } from '../cli/abi-call.js'
import { TxCommand, txFlags, type TxSendResult } from '../cli/tx-command.js'

export default class Send extends TxCommand {
  static override summary = 'Send a transaction calling a contract function, as cast send.'
  static override description =
    'Encodes the call from a signature and its arguments as "nodectl call" does (or takes --data), then signs with --from and ' +
    'submits exactly as "nodectl tx send" (the same nonce, gas, fee, --wait and key-store flags). With only an address and --value ' +
    'it sends ether.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0x5FbD…0aa3 "transfer(address,uint256)" 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 5 --from alice --wait',
    '<%= config.bin %> <%= command.id %> 0x7099…79C8 --value 1ether --from alice',
    '<%= config.bin %> <%= command.id %> 0x5FbD…0aa3 "set(uint256)" 42 --from alice --gas-price 30gwei --priority-gas-price 2gwei',
  ]
  static override strict = false
  static override args = {}
  static override usage = '<%= command.id %> <to> [sig] [args...] --from <key|address>'
  static override flags = {
    ...txFlags,
    data: Flags.string({ summary: 'Call data instead of a signature: 0x hex, or @file holding it.' }),
  }

  async run(): Promise<TxSendResult> {
    const { argv, flags } = await this.parse(Send)
    const target = await readCallTarget(argv as string[], flags.data, flags.home)
    return this.submit(flags, { to: target.to, data: target.data.length > 0 ? target.data : undefined })
  }
}
