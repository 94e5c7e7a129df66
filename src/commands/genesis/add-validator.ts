/** `nodectl genesis add-validator <pubkey> <power>`: adds a validator to genesis.json (CometBFT's `validators` list). */
import { Args, Flags } from '@oclif/core'
import { NodectlCommand } from '../../cli/nodectl-command.js'
import { parseEd25519PubKey } from '../../cli/tx-values.js'
import { addGenesisValidator } from '../../config/genesis-edit.js'
import { homePaths, resolveHome } from '../../config/home.js'
import { bytesToBase64, bytesToUpperHex } from '../../primitives/hex.js'
import { ConfigError } from '../../utils/errors.js'

/** What `genesis add-validator` added (the `--json` output). */
export interface AddValidatorResult {
  /** Validator address, upper-case hex. */
  address: string
  /** ed25519 public key, base64. */
  pubKey: string
  /** Voting power, decimal. */
  power: string
  name: string
  /** The genesis.json edited. */
  genesis: string
}

/** `nodectl genesis add-validator`: see the file comment. */
export default class GenesisAddValidator extends NodectlCommand {
  static override summary = 'Add a validator to genesis.json.'
  static override description =
    'Appends {address, pub_key, power, name} to the validators of <home>/config/genesis.json. The public key is the ed25519 key ' +
    'that "nodectl show-validator" prints on the validator\'s machine (its "value", base64) or the same 32 bytes in hex. A key ' +
    "already in the genesis is refused. The file is checked with the node's decoder and replaced atomically."
  static override examples = [
    '<%= config.bin %> <%= command.id %> 6b0GyB+9nlVYFUI2jrKqQ7WFaNjEiTsSHOTKyR/NAaM= 10 --name node1',
    '<%= config.bin %> <%= command.id %> 0xe9bd06c81fbd9e55581542368eb2aa43b58568d8c4893b121ce4cac91fcd01a3 10 --home ./net/node0',
  ]
  static override enableJsonFlag = true
  static override args = {
    pubkey: Args.string({ description: 'ed25519 public key, base64 or hex (32 bytes).', required: true }),
    power: Args.string({ description: 'Voting power, a positive integer.', required: true }),
  }
  static override flags = {
    name: Flags.string({ description: 'Validator name (its moniker).', default: '' }),
    home: Flags.string({ description: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl]' }),
  }

  async run(): Promise<AddValidatorResult> {
    const { args, flags } = await this.parse(GenesisAddValidator)
    const genesis = homePaths(resolveHome(flags.home)).genesis
    let pubKey: Uint8Array
    try {
      pubKey = parseEd25519PubKey(args.pubkey, 'pubkey')
    } catch (err) {
      this.error((err as Error).message, { exit: 1 })
    }
    if (!/^[1-9][0-9]*$/.test(args.power)) this.error(`invalid power "${args.power}": want a positive integer`, { exit: 1 })
    try {
      const added = await addGenesisValidator(genesis, { pubKey, power: BigInt(args.power), name: flags.name })
      const result: AddValidatorResult = {
        address: bytesToUpperHex(added.address),
        pubKey: bytesToBase64(added.pubKey),
        power: added.power.toString(),
        name: added.name,
        genesis,
      }
      this.log(`Added validator ${result.address} (power ${result.power}) to ${genesis}`)
      return result
    } catch (err) {
      if (err instanceof ConfigError) this.error(err.message, { exit: 1 })
      throw err
    }
  }
}
