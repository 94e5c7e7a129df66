/** `nodectl subscribe events "<query>"`: stream consensus events matching a query (CometBFT subscribe over /websocket). */
import { Args } from '@oclif/core'
import { SUBSCRIBABLE_EVENTS } from '../../api/comet/events/event-payloads.js'
import { cometSubscriptions } from '../../rpc/client/index.js'
import { cometConnectionFlags, cometEndpointsOf, describeCometError } from '../../cli/comet-command.js'
import { describeEventLine } from '../../cli/comet-event-line.js'
import type { CometEventMessage } from '../../cli/comet-types.js'
import { StreamCommand, streamFlags, type SubscribeResult } from '../../cli/subscription-command.js'

/** The `tm.event` values a node (ours or CometBFT, whose StateSyncStatus ours never emits) can send. */
const KNOWN_EVENTS: readonly string[] = [...SUBSCRIBABLE_EVENTS, 'StateSyncStatus']

/** The `tm.event='X'` names of `query` that no event has. */
export function unknownEventNames(query: string): string[] {
  return [...query.matchAll(/tm\.event\s*=\s*'([^']*)'/g)].map((m) => m[1]!).filter((name) => !KNOWN_EVENTS.includes(name))
}

export default class SubscribeEvents extends StreamCommand {
  static override summary = 'Stream consensus events.'
  static override description =
    "Prints one line per consensus event matching a CometBFT event query (subscribe on the consensus RPC's /websocket) until Ctrl-C: " +
    `the event name and its key facts (height/round/step, block and tx hashes, votes). Events: ${KNOWN_EVENTS.join(', ')} ` +
    '(a tm.event naming another is warned about). --json prints each event as the node sent it ({query, data, events}). Reconnects ' +
    'with back-off if the node restarts.'
  static override examples = [
    `<%= config.bin %> <%= command.id %> "tm.event='NewBlock'"`,
    `<%= config.bin %> <%= command.id %> "tm.event='Tx' AND ethereum.recipient='0x70997970c51812dc3a010c7d01b50e0d17dc79c8'" --json`,
    `<%= config.bin %> <%= command.id %> "tm.event='Vote'" --comet-url tcp://10.0.0.5:26657 --count 10`,
  ]
  static override baseFlags = { ...cometConnectionFlags, ...streamFlags }
  static override args = { query: Args.string({ description: `Event query, e.g. "tm.event='NewBlock'"`, required: true }) }

  protected override describeError(err: unknown): string | undefined {
    return describeCometError(err)
  }

  async run(): Promise<SubscribeResult> {
    const { args, flags } = await this.parse(SubscribeEvents)
    for (const name of unknownEventNames(args.query))
      this.logToStderr(`Warning: no event is named "${name}": tm.event='${name}' never matches (known: ${KNOWN_EVENTS.join(', ')})`)
    const { ws } = await cometEndpointsOf(flags)
    return this.streamFrom({ url: ws, dialect: cometSubscriptions }, flags, {
      params: [args.query],
      renderLine: (event) => describeEventLine(event as CometEventMessage),
    })
  }
}
