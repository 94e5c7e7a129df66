/** `nodectl trace block <number|hash|latest>`: every transaction of a block traced (debug_traceBlockBy*). */
import { Args } from '@oclif/core'
import { parseBlockSelector } from '../../cli/params.js'
import { TraceCommand, traceFlags } from '../../cli/trace-command.js'
import { renderBlockTrace, type BlockTraceEntry } from '../../cli/trace-render.js'

export default class TraceBlock extends TraceCommand {
  static override summary = 'Trace every transaction of a block.'
  static override description =
    "Re-executes a block's transactions with debug_traceBlockByNumber / debug_traceBlockByHash, each under a fresh tracer and its " +
    "own --timeout, and shows each one's call tree (or the chosen tracer's result); a transaction whose trace failed shows why. The " +
    'genesis block is not traceable.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> latest',
    '<%= config.bin %> <%= command.id %> 42 --tracer 4byteTracer',
    '<%= config.bin %> <%= command.id %> 0x5c…e1 --json',
  ]
  static override args = { block: Args.string({ description: 'Block number (decimal or hex), tag or hash', default: 'latest' }) }
  static override flags = traceFlags

  async run(): Promise<BlockTraceEntry[]> {
    const { args, flags } = await this.parse(TraceBlock)
    const selector = parseBlockSelector(args.block)
    const request = await this.traceRequest(flags)
    const method = selector.kind === 'hash' ? 'debug_traceBlockByHash' : 'debug_traceBlockByNumber'
    const entries = await (await this.traceClient(flags, request, true)).call<BlockTraceEntry[]>(method, [selector.value, request.config])
    if (!this.jsonEnabled()) this.log(renderBlockTrace(args.block, request.view, entries, request.limit))
    return entries
  }
}
