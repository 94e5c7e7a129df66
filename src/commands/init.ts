/**
 * `nodectl init <moniker>`: writes a new home (config.toml, app.toml, genesis.json with this node as
 * the one validator, keys, sign state, JWT secret, key store), as `cometbft init` / `evmosd init`.
 */
import { Args, Flags } from '@oclif/core'
import { NodectlCommand } from '../cli/nodectl-command.js'
import { DEFAULT_CHAIN_ID } from '../config/chain-id.js'
import { resolveHome } from '../config/home.js'
import { HomeExistsError, initHome, type InitHomeResult } from '../config/init-home.js'
import { ENGINES } from '../config/cometbft-keys.js'
import { ConfigError } from '../utils/errors.js'

/** What `init` created (the `--json` output). */
export interface InitResult {
  /** Absolute home directory. */
  home: string
  /** Node name. */
  moniker: string
  /** Chain id written to genesis.json. */
  chainId: string
  /** EIP-155 chain id, decimal. */
  evmChainId: string
  /** Node id (lower-case hex) for `<node id>@host:port` peer addresses. */
  nodeId: string
  /** Validator address, upper-case hex. */
  validatorAddress: string
  /** Validator ed25519 public key, base64. */
  validatorPubKey: string
  /** Absolute paths of the files (and the key-store folder) written. */
  files: {
    configToml: string
    appToml: string
    genesis: string
    nodeKey: string
    privValidatorKey: string
    privValidatorState: string
    jwtSecret: string
    keystore: string
  }
}

/** `nodectl init <moniker>`: see the file comment. */
export default class Init extends NodectlCommand {
  static override summary = 'Initialise a node home: configuration, genesis and keys.'
  static override description =
    `Writes <home>/config/{config.toml, app.toml, genesis.json, node_key.json, priv_validator_key.json, jwt.hex}, ` +
    `<home>/data/priv_validator_state.json and <home>/keystore/. The genesis has this node's new validator key as its one validator ` +
    `(power 10) and no funded accounts. The home is --home, else $NODECTL_HOME, else ~/.nodectl. An initialised home ` +
    `(config/genesis.json present) is refused unless --overwrite is given.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> mynode',
    '<%= config.bin %> <%= command.id %> mynode --chain-id nodectl_9000-1 --home ./node0',
    '<%= config.bin %> <%= command.id %> mynode --overwrite',
    '<%= config.bin %> <%= command.id %> mynode --home ./chain --engine cometbft   # then nodectl start --abci and cometbft start',
  ]
  static override enableJsonFlag = true
  static override args = {
    moniker: Args.string({
      description: 'Human-readable name of this node (config.toml moniker, genesis validator name).',
      required: true,
    }),
  }
  static override flags = {
    'chain-id': Flags.string({ description: `Chain id, <name>_<EVM chain id>-<version> [default: ${DEFAULT_CHAIN_ID}]` }),
    home: Flags.string({ description: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl]' }),
    overwrite: Flags.boolean({
      description: 'Replace an initialised home: new configuration, keys and genesis; its chain data is deleted (the key store is kept).',
    }),
    engine: Flags.string({
      description:
        'The consensus engine the home is for: nodectl (ours) or cometbft (a stock CometBFT, with "nodectl start --abci"; config.toml also gets proxy_app).',
      options: [...ENGINES],
      default: 'nodectl',
    }),
  }

  async run(): Promise<InitResult> {
    const { args, flags } = await this.parse(Init)
    const home = resolveHome(flags.home)
    let created: InitHomeResult
    try {
      created = await initHome({
        home,
        moniker: args.moniker,
        chainId: flags['chain-id'] ?? DEFAULT_CHAIN_ID,
        overwrite: flags.overwrite,
        ...(flags.engine === 'cometbft' ? { cometbft: { loopbackNetwork: false } } : {}),
      })
    } catch (err) {
      if (err instanceof ConfigError || err instanceof HomeExistsError) this.error(err.message, { exit: 1 })
      throw err
    }
    const { paths } = created
    const result: InitResult = {
      home: created.home,
      moniker: created.moniker,
      chainId: created.chainId,
      evmChainId: created.evmChainId.toString(),
      nodeId: created.nodeId,
      validatorAddress: created.validatorAddress,
      validatorPubKey: created.validatorPubKey,
      files: {
        configToml: paths.configToml,
        appToml: paths.appToml,
        genesis: paths.genesis,
        nodeKey: paths.nodeKey,
        privValidatorKey: paths.privValidatorKey,
        privValidatorState: paths.privValidatorState,
        jwtSecret: paths.jwtSecret,
        keystore: paths.keystoreDir,
      },
    }
    this.log(`Initialised ${result.home}`)
    this.log(`  chain id            ${result.chainId} (EVM chain id ${result.evmChainId})`)
    this.log(`  moniker             ${result.moniker}`)
    this.log(`  node id             ${result.nodeId}`)
    this.log(`  validator           ${result.validatorAddress} (power ${created.genesis.validators[0]!.power})`)
    for (const [name, path] of Object.entries(result.files)) this.log(`  ${name.padEnd(20)}${path}`)
    this.log(`Start it with: nodectl start --home ${result.home} --json-rpc.enable`)
    return result
  }
}
