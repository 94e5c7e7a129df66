/** `nodectl genesis validate`: checks genesis.json with the node's own decoders (CometBFT's `genesis validate`). */
import { Flags } from '@oclif/core'
import { NodectlCommand } from '../../cli/nodectl-command.js'
import { GenesisError, parseAppState } from '../../evm/genesis.js'
import { loadGenesis } from '../../config/genesis.js'
import { homePaths, resolveHome } from '../../config/home.js'
import { ConfigError } from '../../utils/errors.js'

/** What `genesis validate` found in a valid file (the `--json` output). */
export interface ValidateGenesisResult {
  /** The genesis.json checked. */
  genesis: string
  chainId: string
  /** Number of validators. */
  validators: number
  /** Number of funded accounts. */
  accounts: number
}

/** `nodectl genesis validate`: see the file comment. */
export default class GenesisValidate extends NodectlCommand {
  static override summary = 'Check genesis.json as the node reads it.'
  static override description =
    'Decodes <home>/config/genesis.json with the decoders the node starts with: the chain id (<name>_<EVM chain id>-<version>), ' +
    'at least one validator, each with a 32-byte ed25519 key and a positive power, no duplicate validators or accounts, ' +
    'well-formed accounts and fee market. Prints "genesis.json is valid", or the first problem with exit code 1.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --home ./testnet/node0']
  static override enableJsonFlag = true
  static override flags = {
    home: Flags.string({ description: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl]' }),
  }

  async run(): Promise<ValidateGenesisResult> {
    const { flags } = await this.parse(GenesisValidate)
    const genesis = homePaths(resolveHome(flags.home)).genesis
    try {
      const doc = await loadGenesis(genesis)
      const app = parseAppState(doc.appState)
      this.log('genesis.json is valid')
      return { genesis, chainId: doc.chainId, validators: doc.validators.length, accounts: app.accounts.length }
    } catch (err) {
      if (err instanceof ConfigError) this.error(err.message, { exit: 1 })
      if (err instanceof GenesisError) this.error(`genesis.json: ${err.message}`, { exit: 1 })
      throw err
    }
  }
}
