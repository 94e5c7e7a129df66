/** `nodectl show-node-id`: the node id of the home's node key, as `cometbft show-node-id` prints it. */
import { Flags } from '@oclif/core'
import { NodectlCommand } from '../cli/nodectl-command.js'
import { homePaths, resolveHome } from '../config/home.js'
import { loadNodeKey, nodeIdOf } from '../keystore/validator-key.js'

/** What `show-node-id` printed (the `--json` output). */
export interface ShowNodeIdResult {
  /** Lower-case hex: the first 20 bytes of SHA-256 of the node key's ed25519 public key. */
  nodeId: string
}

/** `nodectl show-node-id`: see the file comment. */
export default class ShowNodeId extends NodectlCommand {
  static override summary = "Print this node's id (for <node id>@host:port peer addresses)."
  static override description =
    'Reads <home>/config/node_key.json and prints its node id: the lower-case hex of the first 20 bytes of SHA-256 of its ed25519 ' +
    'public key, as CometBFT. Other nodes name this one as <node id>@host:port in [p2p] persistent_peers.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --home ./testnet/node1']
  static override enableJsonFlag = true
  static override flags = {
    home: Flags.string({ description: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl]' }),
  }

  async run(): Promise<ShowNodeIdResult> {
    const { flags } = await this.parse(ShowNodeId)
    const path = homePaths(resolveHome(flags.home)).nodeKey
    const key = await loadNodeKey(path).catch((err: unknown) => this.error(`cannot read ${path}: ${(err as Error).message}`, { exit: 1 }))
    const nodeId = nodeIdOf(key)
    if (!this.jsonEnabled()) this.log(nodeId)
    return { nodeId }
  }
}
