/**
 * eth methods that use the node's accounts: eth_accounts (with a dev chain's impersonated addresses after
 * them, as Anvil lists them), and signing with an unlocked account
 * (spec "Account key in the key store": only an unlocked account signs; otherwise -32000
 * `authentication needed: password or unlock`):
 * - eth_sign(address, data): EIP-191 text signature, V = 27/28 (geth `SignText` + 27);
 * - eth_signTypedData_v4(address, typedData): EIP-712 (object or JSON string, as MetaMask and ethers send it);
 * - eth_signTransaction(args): geth's `{raw, tx}`; gas, fees and nonce must be given (tx-defaults.ts),
 *   and the fee is checked against `txfee-cap` before signing, as geth does;
 * - eth_sendTransaction(args): filled as geth (tx-defaults.ts), signed, and submitted like eth_sendRawTransaction.
 */
import { toPendingEvmTx } from '../../evm/store/evm-records.js'
import { hashTypedData, parseTypedData, TypedDataError } from './typed-data.js'
import { keccak256 } from '../../crypto/index.js'
import { DecodeError, address, data, type Codec } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import { checkTxFee } from '../../txpool/validate-tx.js'
import { signDigest, type AccountsBackend } from './accounts-backend.js'
import type { EthBackend } from './backend.js'
import { encodeData, formatTransaction } from './format.js'
import { sendArgs } from './send-args.js'
import { encodeRpcSignature, textHash } from './text-signature.js'
import { completeTransaction } from './tx-defaults.js'
import { signTransactionFields, type TransactionSender } from './transaction-signer.js'

/** eth_signTypedData_v4's data, parsed and hashed while decoding: malformed typed data is an invalid argument. */
export const typedDataDigest: Codec<Uint8Array> = (value) => {
  try {
    return hashTypedData(parseTypedData(value))
  } catch (err) {
    if (err instanceof TypedDataError) throw new DecodeError(err.message)
    throw err
  }
}

export interface EthSigningOptions {
  /** `[json-rpc] txfee-cap` in ether (0 = none), checked by eth_signTransaction before it signs. */
  txFeeCap: number
}

export function createEthSigningMethods(
  backend: EthBackend,
  accounts: AccountsBackend,
  sender: TransactionSender,
  options: EthSigningOptions,
): MethodTable {
  const sign = async (account: Uint8Array, digest: Uint8Array): Promise<string> =>
    encodeData(encodeRpcSignature(await signDigest(accounts, account, digest)))
  return [
    defineMethod('eth_accounts', [], async () => {
      // The node's accounts, then the addresses impersonated on a dev chain that are not among them (as Anvil).
      const listed = (await accounts.accounts()).map(encodeData)
      const known = new Set(listed)
      return [
        ...listed,
        ...sender
          .keylessAccounts()
          .map(encodeData)
          .filter((a) => !known.has(a)),
      ]
    }),
    defineMethod('eth_sign', [required(address), required(data)], ([account, message]) => sign(account, textHash(message))),
    defineMethod('eth_signTypedData_v4', [required(address), required(typedDataDigest)], ([account, digest]) => sign(account, digest)),
    defineMethod('eth_signTransaction', [required(sendArgs)], async ([args]) => {
      const fields = completeTransaction(backend, args)
      checkTxFee({ gasLimit: fields.gasLimit, maxFeePerGas: fields.maxFeePerGas ?? fields.gasPrice! }, options.txFeeCap)
      const signer = await accounts.openSigner(args.from)
      try {
        const raw = signTransactionFields(signer, fields)
        return { raw: encodeData(raw), tx: formatTransaction(toPendingEvmTx(raw, keccak256(raw), args.from)) }
      } finally {
        signer.close()
      }
    }),
    defineMethod('eth_sendTransaction', [required(sendArgs)], async ([args]) => encodeData(await sender.send(args))),
  ]
}
