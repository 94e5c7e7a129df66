/**
 * `nodectl start`: resolves the configuration (defaults < config.toml/app.toml < NODECTL_* < flags),
 * starts the node, prints where it listens, and stops it cleanly on SIGINT/SIGTERM (cli/start-node.ts).
 * `--dev` runs a throw-away single-validator chain (chain id nodectl_31337-1, the 10 well-known
 * accounts funded, every namespace on loopback), in a temporary home unless --home is given.
 * bin/run.js runs a well-formed `start` from the start bundle, without this class; help, bad flags and
 * the hidden test flags come here.
 */
import { Flags } from '@oclif/core'
import { NodectlCommand } from '../cli/nodectl-command.js'
import { buildSettingFlags } from '../cli/setting-flags.js'
import { normalizeBooleanArgs } from '../cli/start-argv.js'
import { runNode, StartFailure, type StartFlags } from '../cli/start-node.js'
import { DEV_MNEMONIC } from '../keystore/dev-accounts.js'

/** `nodectl start`: see the file comment. */
export default class Start extends NodectlCommand {
  static override summary = 'Run the node.'
  static override description =
    `Starts consensus and the RPC servers of the node in --home (default $NODECTL_HOME, else ~/.nodectl; create it with "nodectl init"). Every config.toml/app.toml key can be overridden with the flag --<table>.<key> or the environment variable NODECTL_<TABLE>_<KEY>; flags win over the environment, which wins over the files. With --dev, runs a throw-away chain: chain id nodectl_31337-1, the 10 accounts of "${DEV_MNEMONIC}" funded with 10,000 ETH each, all JSON-RPC namespaces on 127.0.0.1:8545 (HTTP) and :8546 (WebSocket), consensus RPC on 127.0.0.1:26657, a block as soon as transactions wait; in a temporary home deleted on exit, or in --home (initialised if empty; a home made by "nodectl init", whose chain does not fund the dev accounts, is refused). Stop with Ctrl-C.`
  static override usage = '<%= command.id %> [--home DIR] [--dev | --abci] [--<table>.<key> VALUE]...'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --dev',
    '<%= config.bin %> <%= command.id %> --json-rpc.enable --json-rpc.api eth,web3,net,txpool,debug',
    '<%= config.bin %> <%= command.id %> --home ./net/node0 --rpc.laddr tcp://127.0.0.1:36657 --log_level debug',
    '<%= config.bin %> <%= command.id %> --abci --home ~/.nodectl   # then: cometbft start --home ~/.nodectl',
  ]
  static override flags = {
    home: Flags.string({ summary: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl; with --dev a new temporary directory].' }),
    dev: Flags.boolean({ summary: 'Run a throw-away development chain (see the description).' }),
    abci: Flags.boolean({
      summary:
        'Run only the EVM application, for an external CometBFT: listen for its ABCI connections on --abci.laddr and send transactions to its RPC at --rpc.laddr (docs/abci.md).',
      exclusive: ['dev'],
    }),
    json: Flags.boolean({ summary: 'Print the banner as one JSON object ({"event": "serving", …}), and sync progress as JSON lines.' }),
    // Fault tests only: a byzantine validator that signs one conflicting prevote at the first height ≥ H.
    'unsafe-double-sign-at': Flags.integer({ hidden: true, min: 1 }),
    // Fault tests only: serve chunk N of every snapshot corrupted to state-syncing peers.
    'unsafe-corrupt-snapshot-chunk': Flags.integer({ hidden: true, min: 0, multiple: true }),
    ...buildSettingFlags(),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Start, normalizeBooleanArgs(this.argv))
    try {
      await runNode(flags as StartFlags, this.config.version, {
        log: (line) => this.log(line),
        logToStderr: (line) => this.logToStderr(line),
        warn: (message) => this.warn(message),
      })
    } catch (err) {
      if (err instanceof StartFailure) this.error(err.message, { exit: err.exit })
      throw err
    }
    this.exit(0)
  }
}
