/** `nodectl tx set-validator --pubkey --power --from`: a validator update through the validator-admin system contract. */
import { Flags } from '@oclif/core'
import { durationFlag } from '../../cli/duration-flag.js'
import { keyValueTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'
import { describeSenderError, senderOf, signerFlags } from '../../cli/sender-key.js'
import { submitTx, waitForReceipt } from '../../cli/tx-signing.js'
import { parseEd25519PubKey } from '../../cli/tx-values.js'
import { validatorAddress } from '../../comet/validator-set.js'
import { VALIDATOR_ADMIN_ADDRESS, encodeSetValidator } from '../../evm/validators/validator-admin.js'
import { bytesToBase64, bytesToUpperHex } from '../../primitives/hex.js'

/** Result of `tx set-validator`. */
export interface SetValidatorResult {
  hash: string
  from: string
  /** Consensus address of the validator (upper hex). */
  validator: string
  pubKey: string
  power: string
  blockNumber: number
  status: 0 | 1
  gasUsed: string
  /** First height validated by the changed set (updates of block H apply from H+2). */
  effectiveHeight: number
}

export default class TxSetValidator extends RpcCommand {
  static override summary = 'Add, change or remove a validator (validator admin only).'
  static override description =
    'Calls setValidator(bytes32,uint64) of the validator-admin system contract at 0x0000000000000000000000000000000000000800 from ' +
    '--from, which must be the genesis validator_admin (dev account 0 with --dev): a key-store name or address, decrypted with the ' +
    'passphrase of --password-file, $NODECTL_PASSWORD or a prompt, or a raw private key. Power 0 removes the validator; the set can ' +
    'never become empty. The change applies from two heights after the block that includes it.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --pubkey 0x8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c --power 1 --from ' +
      '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    '<%= config.bin %> <%= command.id %> --pubkey iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w= --power 0 --from ./admin.key --json',
    '<%= config.bin %> <%= command.id %> --pubkey iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w= --power 1 --from admin --password-file ' +
      './pw.txt',
  ]
  static override flags = {
    pubkey: Flags.string({ summary: 'ed25519 public key of the validator (base64 or hex).', required: true }),
    power: Flags.string({ summary: 'Voting power (0 removes).', required: true }),
    from: Flags.string({
      summary: 'The validator admin: key-store name or address (any letter case), or its private key (64 hex digits) or a file holding it.',
      required: true,
    }),
    timeout: durationFlag({ name: 'timeout', summary: 'How long to wait for the receipt.', default: '30s' }),
    ...signerFlags,
  }

  async run(): Promise<SetValidatorResult> {
    const { flags } = await this.parse(TxSetValidator)
    const pubKey = parseEd25519PubKey(flags.pubkey)
    if (!/^[0-9]+$/.test(flags.power)) throw new Error(`invalid --power "${flags.power}": want a non-negative integer`)
    const power = BigInt(flags.power)
    const client = await this.httpClient(flags)
    const submitted = await submitTx(client, senderOf(flags), { to: VALIDATOR_ADMIN_ADDRESS, data: encodeSetValidator(pubKey, power) })
    const sent = { ...submitted, ...(await waitForReceipt(client, submitted.hash, flags.timeout)) }
    const result: SetValidatorResult = {
      hash: sent.hash,
      from: sent.from,
      validator: bytesToUpperHex(validatorAddress(pubKey)),
      pubKey: bytesToBase64(pubKey),
      power: power.toString(),
      blockNumber: sent.blockNumber,
      status: sent.status,
      gasUsed: sent.gasUsed.toString(),
      effectiveHeight: sent.blockNumber + 2,
    }
    if (sent.status !== 1) this.error(`transaction ${sent.hash} failed in block ${sent.blockNumber}`, { exit: 1 })
    if (!this.jsonEnabled()) this.log(keyValueTable(Object.entries(result).map(([k, v]) => [k, v])))
    return result
  }

  protected override describeError(err: unknown): string | undefined {
    return describeSenderError(err) ?? super.describeError(err)
  }
}
