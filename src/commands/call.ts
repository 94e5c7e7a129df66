/** `nodectl call <to> "balanceOf(address)(uint256)" 0x…`: a read-only call, as `cast call`. */
import { Flags } from '@oclif/core'
import { callRequestOf, decodeResult, readCallTarget } from '../cli/abi-call.js'
import { parseBlockNumber } from '../cli/params.js'
import { RpcCommand } from '../cli/rpc-command.js'
import { formatAbiType } from '../primitives/abi.js'
import { hexToBytes } from '../primitives/hex.js'

/** Result of `call`. */
export interface CallResult {
  /** The raw return data. */
  data: string
  /** The decoded return values (integers as decimal strings), when the signature names return types. */
  values?: unknown[]
}

export default class Call extends RpcCommand {
  static override summary = 'Call a contract without a transaction (eth_call), as cast call.'
  static override description =
    'Encodes the call from a signature and its arguments ("balanceOf(address)(uint256)" 0x…; the second parentheses are the ' +
    'return types, which decode the result: one value per line, integers in decimal, addresses checksummed, strings quoted), or ' +
    'takes --data (0x hex, or @file). Without return types the raw return data is printed. Arguments: integers in decimal or 0x ' +
    'hex, true/false, 0x hex bytes, [a,b] arrays, (a,b) tuples, anything else as a string.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0x5FbDB2315678afecb367f032d93F642f64180aa3 "balanceOf(address)(uint256)" 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '<%= config.bin %> <%= command.id %> 0x5FbD…0aa3 "name()(string)" --block 12',
    '<%= config.bin %> <%= command.id %> 0x5FbD…0aa3 --data @calldata.hex --json',
  ]
  static override strict = false
  static override args = {}
  static override usage = '<%= command.id %> <to> [sig] [args...]'
  static override flags = {
    data: Flags.string({ summary: 'Call data instead of a signature: 0x hex, or @file holding it.' }),
    from: Flags.string({ summary: 'Caller address [default: none].' }),
    value: Flags.string({ summary: 'Value sent with the call: 1.5ether, 1000gwei or wei.' }),
    block: Flags.string({ summary: 'Block number or tag.', default: 'latest' }),
  }

  async run(): Promise<CallResult> {
    const { argv, flags } = await this.parse(Call)
    const target = await readCallTarget(argv as string[], flags.data, flags.home)
    const request = await callRequestOf(target, flags)
    const data = await (await this.httpClient(flags)).call<string>('eth_call', [request, parseBlockNumber(flags.block)])
    const outputs = target.signature?.outputs
    if (outputs === undefined) {
      if (!this.jsonEnabled()) this.log(data)
      return { data }
    }
    let decoded: ReturnType<typeof decodeResult>
    try {
      decoded = decodeResult(outputs, hexToBytes(data))
    } catch (err) {
      const types = outputs.map(formatAbiType).join(',')
      throw new Error(
        `cannot decode the result ${data} as (${types}): ${(err as Error).message}; is the address a contract with this function?`,
      )
    }
    if (!this.jsonEnabled()) for (const v of decoded) this.log(v.text)
    return { data, values: decoded.map((v) => v.json) }
  }
}
