/** `nodectl show-validator`: the validator's ed25519 public key, as `cometbft show-validator` prints it. */
import { Flags } from '@oclif/core'
import { NodectlCommand } from '../cli/nodectl-command.js'
import { homePaths, resolveHome } from '../config/home.js'
import { PUBKEY_ED25519_TYPE } from '../config/genesis.js'
import { loadValidatorKey } from '../keystore/validator-key.js'
import { bytesToBase64 } from '../primitives/hex.js'

/** The Amino-JSON public key CometBFT prints. */
export interface ShowValidatorResult {
  /** "tendermint/PubKeyEd25519". */
  type: string
  /** The 32-byte public key, base64. */
  value: string
}

/** `nodectl show-validator`: see the file comment. */
export default class ShowValidator extends NodectlCommand {
  static override summary = "Print this node's validator public key, as CometBFT prints it."
  static override description =
    "Reads <home>/config/priv_validator_key.json and prints its public key in CometBFT's form, " +
    '{"type":"tendermint/PubKeyEd25519","value":"<base64>"} (the Cosmos SDK writes the same key as ' +
    '{"@type":"/cosmos.crypto.ed25519.PubKey","key":"<base64>"}). Give the value to "nodectl genesis add-validator".'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --home ./testnet/node1']
  static override enableJsonFlag = true
  static override flags = {
    home: Flags.string({ description: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl]' }),
  }

  async run(): Promise<ShowValidatorResult> {
    const { flags } = await this.parse(ShowValidator)
    const path = homePaths(resolveHome(flags.home)).privValidatorKey
    const key = await loadValidatorKey(path).catch((err: unknown) =>
      this.error(`cannot read ${path}: ${(err as Error).message}`, { exit: 1 }),
    )
    const result: ShowValidatorResult = { type: PUBKEY_ED25519_TYPE, value: bytesToBase64(key.publicKey) }
    // CometBFT's output is this JSON already; --json prints it pretty-printed.
    if (!this.jsonEnabled()) this.log(JSON.stringify(result))
    return result
  }
}
