/** `nodectl tx send --from --to --value [--data] [--wait]`: sign locally with a key-store account and submit. */
import { Flags } from '@oclif/core'
import { TxCommand, txFlags, type TxSendResult } from '../../cli/tx-command.js'
import { resolveAddress } from '../../cli/address-names.js'
import { UsageError } from '../../cli/failure.js'
import { parseData } from '../../cli/tx-values.js'
import { hexToBytes } from '../../primitives/hex.js'

export type { TxSendResult } from '../../cli/tx-command.js'

export default class TxSend extends TxCommand {
  static override summary = 'Sign a transaction with a key-store account and send it.'
  static override description =
    'Signs locally with --from (a key-store name or address, decrypted with the passphrase of --password-file, $NODECTL_PASSWORD or a ' +
    'prompt) and submits with eth_sendRawTransaction. Nonce (pending), gas (eth_estimateGas) and fees (EIP-1559: 2 × base fee + ' +
    "eth_maxPriorityFeePerGas) are filled as geth does unless given; the fee flags are cast's. --nonce of one of your pending " +
    'transactions replaces it: without fee flags both fees are raised 10% above its own (rounded up), the least the pool accepts. ' +
    'Without --to, --data is contract creation code. Prints the hash; --wait waits for the receipt, prints it, and exits 1 when the ' +
    'transaction failed, with its revert reason.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --from alice --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --value 1.5ether --wait',
    'NODECTL_PASSWORD=… <%= config.bin %> <%= command.id %> --from 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 --to 0x7099…79C8 ' +
      '--value 1000gwei --json',
    '<%= config.bin %> <%= command.id %> --from alice --data 0x6080… --wait --password-file ./pw.txt',
    '<%= config.bin %> <%= command.id %> --from alice --to 0x7099…79C8 --value 0 --nonce 7    # replace pending nonce 7, fees +10%',
    '<%= config.bin %> <%= command.id %> --from alice --to 0x7099…79C8 --gas-price 30gwei --priority-gas-price 2gwei',
  ]
  static override flags = {
    ...txFlags,
    to: Flags.string({ summary: 'Recipient address; omit to create a contract from --data.' }),
    data: Flags.string({ summary: 'Call data, or contract creation code without --to (hex).' }),
  }

  async run(): Promise<TxSendResult> {
    const { flags } = await this.parse(TxSend)
    if (flags.to === undefined && flags.data === undefined) throw new UsageError('give --to, or --data without --to to create a contract')
    return this.submit(flags, {
      to: flags.to === undefined ? undefined : hexToBytes(await resolveAddress(flags.to, '--to', flags.home)),
      data: flags.data === undefined ? undefined : parseData(flags.data),
    })
  }
}
