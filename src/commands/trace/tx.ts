/** `nodectl trace tx <hash>`: a mined transaction re-executed under a tracer (debug_traceTransaction). */
import { Args } from '@oclif/core'
import { parseHash } from '../../cli/params.js'
import { TraceCommand, traceFlags } from '../../cli/trace-command.js'
import { renderTransactionTrace } from '../../cli/trace-render.js'

export default class TraceTx extends TraceCommand {
  static override summary = 'Trace a mined transaction.'
  static override description =
    'Re-executes a transaction with debug_traceTransaction (the earlier transactions of its block first) and shows the call tree: ' +
    "each frame's type, from → to, function, value, gas used and, for a failed frame, its decoded revert reason. --tracer struct (or " +
    "--opcodes) shows the opcode table, other tracers their JSON; --json prints the node's result as it sent it. The node must serve " +
    'the debug namespace (on under --dev).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0x9f…c2',
    '<%= config.bin %> <%= command.id %> 0x9f…c2 --tracer prestateTracer --tracer-config \'{"diffMode":true}\'',
    '<%= config.bin %> <%= command.id %> 0x9f…c2 --tracer struct --limit 20',
    '<%= config.bin %> <%= command.id %> 0x9f…c2 --tracer ./count-opcodes.js --timeout 10s',
    '<%= config.bin %> <%= command.id %> 0x9f…c2 --json',
  ]
  static override args = { hash: Args.string({ description: 'Transaction hash (0x + 64 hex)', required: true }) }
  static override flags = traceFlags

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(TraceTx)
    const hash = parseHash(args.hash, 'transaction hash')
    const request = await this.traceRequest(flags)
    const result = await (await this.traceClient(flags, request)).call<unknown>('debug_traceTransaction', [hash, request.config])
    if (!this.jsonEnabled()) this.log(renderTransactionTrace(hash, request.view, result, request.limit))
    return result
  }
}
