/**
 * `nodectl testnet start`: runs every home `nodectl testnet init-files` wrote, each as a `nodectl start
 * --home <home>` child process, with their output merged line by line behind each moniker
 * (src/cli/testnet-runner.ts), until Ctrl-C stops them all.
 */
import { join, resolve } from 'node:path'
import { Flags } from '@oclif/core'
import { findTestnetHomes, selectTestnetHomes, type TestnetHome } from '../../cli/testnet-homes.js'
import { shouldColor } from '../../cli/color.js'
import { DEFAULT_GRACE_PERIOD_MS, TestnetRunner } from '../../cli/testnet-runner.js'
import { ConfigError } from '../../utils/errors.js'
import { NodectlCommand } from '../../cli/nodectl-command.js'

/**
 * Signals that stop the nodes. SIGHUP too: the nodes run in their own process group, so a closed
 * terminal would otherwise leave them running without the command.
 */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** `nodectl testnet start`: see the file comment. */
export default class TestnetStart extends NodectlCommand {
  static override summary = 'Run every node of a local testnet in this terminal, their output prefixed with the moniker.'
  static override description =
    `Starts "nodectl start --home <home>" for each home node0, node1… of <output-dir> (written by "nodectl testnet init-files") ` +
    `as a child process, and prints every line of their output behind the node's moniker ("node0 | …"), coloured on a ` +
    `terminal unless NO_COLOR is set. A node that exits is reported and the others keep running. Ctrl-C (or SIGTERM) ` +
    `sends SIGINT to every node and waits for them; a node still running after ${DEFAULT_GRACE_PERIOD_MS / 1000} s is ` +
    `killed, and a second Ctrl-C kills them all at once. Exits with 0 when every node stopped cleanly, else 1.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> -o ./net --nodes 0,2',
    '<%= config.bin %> <%= command.id %> -o ./net --json | jq -c \'select(.event == "serving") | {moniker, rpc: .jsonRpc.http}\'',
  ]
  static override flags = {
    'output-dir': Flags.string({ char: 'o', description: 'Folder holding the homes, as given to init-files.', default: './testnet' }),
    nodes: Flags.string({ description: 'Start only these homes, by index (0,2 starts node0 and node2) [default: all].' }),
    json: Flags.boolean({
      description:
        'One JSON object per line instead of prefixed text, each with "moniker" and "event": "node" for each home, "serving" with ' +
        'the node\'s start --json banner, "output" for its other lines, "exited", "killed"; last {"event": "stopped", "exitCode"}.',
    }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(TestnetStart)
    const outputDir = resolve(flags['output-dir'])
    let homes = await findTestnetHomes(outputDir)
    if (homes.length === 0) this.error(`no node homes in ${outputDir}: write them with "nodectl testnet init-files"`, { exit: 1 })
    if (flags.nodes !== undefined) {
      try {
        homes = selectTestnetHomes(homes, flags.nodes)
      } catch (err) {
        if (err instanceof ConfigError) this.error(err.message, { exit: 1 })
        throw err
      }
    }
    const json = flags.json
    if (json)
      for (const h of homes) this.log(JSON.stringify({ moniker: h.moniker, event: 'node', home: h.home, jsonRpc: h.jsonRpc ?? null }))
    else for (const line of describeHomes(homes)) this.log(line)

    const runner = new TestnetRunner({
      nodes: homes,
      binPath: join(this.config.root, 'bin/run.js'),
      write: (line) => this.log(line),
      color: !json && shouldColor(),
      json,
    })
    let signals = 0
    const onSignal = (signal: NodeJS.Signals): void => {
      signals++
      if (signals === 1) {
        this.logToStderr(`${signal} received, stopping the nodes; press Ctrl-C again to kill them at once`)
        void runner.stop()
      } else {
        void runner.kill()
      }
    }
    for (const s of STOP_SIGNALS) process.on(s, onSignal)
    let exitCode: 0 | 1
    try {
      runner.start()
      const outcome = await runner.exited
      exitCode = outcome.exitCode
      if (signals === 0) this.logToStderr('every node has exited')
      if (json) this.log(JSON.stringify({ event: 'stopped', exitCode }))
    } finally {
      for (const s of STOP_SIGNALS) process.off(s, onSignal)
      void runner.kill()
    }
    this.exit(exitCode)
  }
}

/** One line per home: moniker, home and, when its files say, JSON-RPC URL, in columns. */
function describeHomes(homes: readonly TestnetHome[]): string[] {
  const monikerWidth = Math.max(...homes.map((h) => h.moniker.length))
  const homeWidth = Math.max(...homes.map((h) => h.home.length))
  return homes.map((h) =>
    `${h.moniker.padEnd(monikerWidth)}  ${h.home.padEnd(homeWidth)}  ${h.jsonRpc ? `JSON-RPC ${h.jsonRpc}` : ''}`.trimEnd(),
  )
}
