/** `nodectl trace call --to --data [--from] [--value] [--gas] [--block]`: a call traced without a transaction (debug_traceCall). */
import { Flags } from '@oclif/core'
import { parseBlockSelector } from '../../cli/params.js'
import { callArgsOf, TraceCommand, traceFlags } from '../../cli/trace-command.js'
import { renderCallTrace } from '../../cli/trace-render.js'

export default class TraceCall extends TraceCommand {
  static override summary = 'Trace a call without sending a transaction.'
  static override description =
    'Runs a call with debug_traceCall on the state after --block (default latest), as a transaction would run (intrinsic gas ' +
    "included), and shows its call tree, or the chosen tracer's result. Without --to, --data is contract creation code."
  static override examples = [
    '<%= config.bin %> <%= command.id %> --to 0x5FbD…0aa3 --data ' +
      '0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266',
    '<%= config.bin %> <%= command.id %> --from 0xf39F…2266 --to 0x5FbD…0aa3 --data 0xa9059cbb… --block 12 --tracer struct --limit 50',
  ]
  static override flags = {
    to: Flags.string({ summary: 'Called address; omit to trace a contract creation from --data.' }),
    data: Flags.string({ summary: 'Call data (hex).' }),
    from: Flags.string({ summary: 'Sender address [default: the zero address].' }),
    value: Flags.string({ summary: 'Value: a plain integer (wei), or 1.5ether, 1000gwei.', default: '0' }),
    gas: Flags.integer({ summary: "Gas limit [default: the node's gas cap].", min: 1 }),
    block: Flags.string({ summary: 'Block number, tag or hash whose state the call runs on.', default: 'latest' }),
    ...traceFlags,
  }

  async run(): Promise<unknown> {
    const { flags } = await this.parse(TraceCall)
    if (flags.to === undefined && flags.data === undefined)
      this.error('give --to (and --data), or --data without --to to trace a contract creation', { exit: 2 })
    const args = await callArgsOf(flags)
    const request = await this.traceRequest(flags)
    const result = await (await this.traceClient(flags, request)).call<unknown>('debug_traceCall', [
      args,
      parseBlockSelector(flags.block).value,
      request.config,
    ])
    if (!this.jsonEnabled()) this.log(renderCallTrace(request.view, result, request.limit))
    return result
  }
}
