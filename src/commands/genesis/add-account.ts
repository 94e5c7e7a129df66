/**
 * `nodectl genesis add-account <address|key name> <amount>`: funds an account in genesis.json (the Cosmos
 * SDK's `genesis add-genesis-account`).
 */
import { Args, Flags } from '@oclif/core'
import { NodectlCommand } from '../../cli/nodectl-command.js'
import { parseValue } from '../../cli/tx-values.js'
import { addGenesisAccount } from '../../config/genesis-edit.js'
import { homePaths, resolveHome } from '../../config/home.js'
import { KeyStore, looksLikeAddress } from '../../keystore/key-store.js'
import { toChecksumAddress } from '../../primitives/address.js'
import { ConfigError } from '../../utils/errors.js'

/** What `genesis add-account` added (the `--json` output). */
export interface AddAccountResult {
  /** EIP-55 address. */
  address: string
  /** Balance in wei, decimal. */
  balance: string
  /** The genesis.json edited. */
  genesis: string
}

/** `nodectl genesis add-account`: see the file comment. */
export default class GenesisAddAccount extends NodectlCommand {
  static override summary = 'Fund an account in genesis.json.'
  static override description =
    'Adds {address, balance} to app_state.evm.accounts of <home>/config/genesis.json. The account is an address or the name of a ' +
    'key in <home>/keystore; the amount reads like "tx send --value": 1000ether, 5gwei or wei. An account already in the ' +
    "genesis is refused. The file is checked with the node's decoder and replaced atomically."
  static override examples = [
    '<%= config.bin %> <%= command.id %> 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 1000ether',
    '<%= config.bin %> <%= command.id %> alice 5gwei --home ./testnet/node0',
  ]
  static override enableJsonFlag = true
  static override args = {
    account: Args.string({ description: 'Address (0x + 40 hex digits) or key-store name.', required: true }),
    amount: Args.string({ description: 'Balance: 1000ether, 5gwei or an integer (wei).', required: true }),
  }
  static override flags = {
    home: Flags.string({ description: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl]' }),
  }

  async run(): Promise<AddAccountResult> {
    const { args, flags } = await this.parse(GenesisAddAccount)
    const paths = homePaths(resolveHome(flags.home))
    let balance: bigint
    try {
      balance = parseValue(args.amount, 'amount')
    } catch (err) {
      this.error((err as Error).message, { exit: 1 })
    }
    let address = args.account
    if (!looksLikeAddress(address)) {
      const key = await new KeyStore({ dir: paths.keystoreDir }).lookup(address)
      if (!key)
        this.error(`invalid account "${address}": not an address, nor a key name in the key store ${paths.keystoreDir}`, { exit: 1 })
      address = key.address
    }
    try {
      await addGenesisAccount(paths.genesis, { address, balance })
    } catch (err) {
      if (err instanceof ConfigError) this.error(err.message, { exit: 1 })
      throw err
    }
    const result: AddAccountResult = { address: toChecksumAddress(address), balance: balance.toString(), genesis: paths.genesis }
    this.log(`Added ${result.address} with ${result.balance} wei to ${result.genesis}`)
    return result
  }
}
