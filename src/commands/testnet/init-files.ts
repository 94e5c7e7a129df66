/**
 * `nodectl testnet init-files`: writes the homes of a local network (CometBFT's `testnet` command):
 * one genesis shared by every node, distinct loopback ports and persistent peers filled in.
 */
import { Flags } from '@oclif/core'
import { listTable } from '../../cli/render.js'
import { DEFAULT_CHAIN_ID } from '../../config/chain-id.js'
import {
  DEFAULT_TESTNET_STARTING_PORT,
  initTestnetFiles,
  OutputDirNotEmptyError,
  TESTNET_PORTS_PER_NODE,
  type TestnetResult,
} from '../../config/testnet.js'
import { ConfigError } from '../../utils/errors.js'
import { ENGINES, type Engine } from '../../config/cometbft-keys.js'
import { NodectlCommand } from '../../cli/nodectl-command.js'

/** `nodectl testnet init-files`: see the file comment. */
export default class TestnetInitFiles extends NodectlCommand {
  static override summary = 'Write the homes of a local testnet: node0, node1… with one shared genesis.'
  static override description =
    `Writes <output-dir>/node0…node{N+M-1}, each a home as "nodectl init" writes it. The genesis, identical in every home, has the ` +
    `first N nodes as validators of equal power (10) and the 10 dev accounts funded with 10,000 ether each (dev account 0 is the ` +
    `validator admin), as --dev funds them. Every listener is on 127.0.0.1: node i uses port P+${TESTNET_PORTS_PER_NODE}·i for ` +
    `JSON-RPC HTTP, +1 for JSON-RPC WebSocket, +2 for the consensus RPC, +3 for p2p, +4 for the ABCI address of ` +
    `"nodectl start --abci" and +5 for Prometheus metrics when [instrumentation] prometheus is on (P = --starting-port). Each node's ` +
    `[p2p] persistent_peers names every other node as <node id>@127.0.0.1:<p2p port>. Start a node with ` +
    `"nodectl start --home <output-dir>/node0". With --engine cometbft the homes also carry what a stock CometBFT reads ` +
    `(proxy_app, and the p2p keys a network on one loopback address needs): run "nodectl start --abci --home <home>" and ` +
    `"cometbft start --home <home>" for each node. A non-empty output folder is refused unless --overwrite is given.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --validators 4',
    '<%= config.bin %> <%= command.id %> --validators 4 --non-validators 1 -o ./net --starting-port 36600 --json',
    '<%= config.bin %> <%= command.id %> --validators 4 -o ./net --engine cometbft',
  ]
  static override enableJsonFlag = true
  static override flags = {
    validators: Flags.integer({ description: 'Number of validators (N).', required: true, min: 1 }),
    'non-validators': Flags.integer({ description: 'Number of full nodes that are not validators (M).', default: 0, min: 0 }),
    'output-dir': Flags.string({ char: 'o', description: 'Folder that receives the homes.', default: './testnet' }),
    'chain-id': Flags.string({ description: `Chain id, <name>_<EVM chain id>-<version> [default: ${DEFAULT_CHAIN_ID}]` }),
    'starting-port': Flags.integer({
      description: `First port of node0 (P); node i uses P+${TESTNET_PORTS_PER_NODE}·i to P+${TESTNET_PORTS_PER_NODE}·i+5.`,
      default: DEFAULT_TESTNET_STARTING_PORT,
    }),
    overwrite: Flags.boolean({ description: 'Write into a non-empty output folder, replacing the homes it holds.' }),
    engine: Flags.string({
      description: 'The consensus engine the homes are for: nodectl (ours) or cometbft (a stock CometBFT with nodectl start --abci).',
      options: [...ENGINES],
      default: 'nodectl',
    }),
  }

  async run(): Promise<TestnetResult> {
    const { flags } = await this.parse(TestnetInitFiles)
    let result: TestnetResult
    try {
      result = await initTestnetFiles({
        outputDir: flags['output-dir'],
        validators: flags.validators,
        nonValidators: flags['non-validators'],
        chainId: flags['chain-id'],
        startingPort: flags['starting-port'],
        overwrite: flags.overwrite,
        engine: flags.engine as Engine,
      })
    } catch (err) {
      if (err instanceof ConfigError || err instanceof OutputDirNotEmptyError) this.error(err.message, { exit: 1 })
      throw err
    }
    this.log(`Wrote ${result.nodes.length} homes in ${result.outputDir} (chain id ${result.chainId})`)
    this.log(
      listTable(
        ['node', 'home', 'node id', 'validator', 'JSON-RPC', 'WebSocket', 'consensus RPC', 'p2p', 'ABCI'],
        result.nodes.map((n) => [n.moniker, n.home, n.nodeId, n.validatorAddress, n.jsonRpc, n.webSocket, n.cometRpc, n.p2p, n.abci]),
      ),
    )
    return result
  }
}
