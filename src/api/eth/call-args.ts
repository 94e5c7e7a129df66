/**
 * The transaction-arguments object (spec "Transaction arguments object", geth `TransactionArgs`) as a
 * parameter codec producing `CallArgs`. Field errors read as Go's decoder
 * (`json: cannot unmarshal ... into Go struct field TransactionArgs.gas of type hexutil.Uint64`);
 * the consistency rules are geth's, plus `gasLimit` as another name for `gas` (docs/decisions.md).
 */
import type { EvmAccessListItem, EvmAuthorization } from '../../evm/store/views.js'
import { equalBytes } from '../../primitives/hex.js'
import { DecodeError, address, data, hash, jsonKind, quantity, structField, uint64, type Codec } from '../../rpc/codecs.js'
import type { CallArgs } from './backend.js'

const STRUCT = 'TransactionArgs'

function field<T>(obj: Record<string, unknown>, name: string, codec: Codec<T>): T | undefined {
  return structField(obj, STRUCT, name, codec)
}

/** geth `types.AccessList`: `[{address, storageKeys: [hash...]}...]`, both keys required. */
export const accessList: Codec<EvmAccessListItem[]> = (value) => {
  if (!Array.isArray(value)) throw new DecodeError(jsonKind(value), 'types.AccessList')
  return value.map((item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new DecodeError(jsonKind(item), 'types.AccessTuple')
    const tuple = item as Record<string, unknown>
    if (tuple.address === undefined) throw new DecodeError("missing required field 'address' for AccessTuple")
    if (tuple.storageKeys === undefined) throw new DecodeError("missing required field 'storageKeys' for AccessTuple")
    if (!Array.isArray(tuple.storageKeys)) throw new DecodeError(jsonKind(tuple.storageKeys), '[]common.Hash')
    return { address: address(tuple.address), storageKeys: tuple.storageKeys.map(hash) }
  })
}

/** geth `[]types.SetCodeAuthorization`: `[{chainId, address, nonce, yParity, r, s}...]` (EIP-7702). */
export const authorizationList: Codec<EvmAuthorization[]> = (value) => {
  if (!Array.isArray(value)) throw new DecodeError(jsonKind(value), '[]types.SetCodeAuthorization')
  return value.map((item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw new DecodeError(jsonKind(item), 'types.SetCodeAuthorization')
    const auth = item as Record<string, unknown>
    const need = <T>(name: string, codec: Codec<T>): T => {
      const v = structField(auth, 'SetCodeAuthorization', name, codec)
      if (v === undefined) throw new DecodeError(`missing required field '${name}' for SetCodeAuthorization`)
      return v
    }
    return {
      chainId: need('chainId', quantity),
      address: need('address', address),
      nonce: need('nonce', uint64),
      yParity: need('yParity', uint64),
      r: need('r', quantity),
      s: need('s', quantity),
    }
  })
}

/**
 * Decodes a call object. Rules (geth `CallDefaults`/`setFeeDefaults` wording):
 * - `data` and `input` both given and different → error; otherwise `input` wins;
 * - `gas` and `gasLimit` both given and different → error; otherwise either is the gas;
 * - `gasPrice` together with `maxFeePerGas`/`maxPriorityFeePerGas` → error;
 * - `maxFeePerGas` < `maxPriorityFeePerGas` → error.
 * Unknown keys are ignored, as Go's decoder does; `null` is the empty object (Go leaves the struct
 * argument at its zero value: geth runs `eth_call([null])`).
 */
export const callArgs: Codec<CallArgs> = (value) => {
  if (value !== null && (typeof value !== 'object' || Array.isArray(value)))
    throw new DecodeError(jsonKind(value), 'ethapi.TransactionArgs')
  const obj = (value ?? {}) as Record<string, unknown>
  const gas = field(obj, 'gas', uint64)
  const gasLimit = field(obj, 'gasLimit', uint64)
  if (gas !== undefined && gasLimit !== undefined && gas !== gasLimit)
    throw new DecodeError("both 'gas' and 'gasLimit' are set and not equal")
  const dataField = field(obj, 'data', data)
  const input = field(obj, 'input', data)
  if (dataField !== undefined && input !== undefined && !equalBytes(dataField, input)) {
    throw new DecodeError("both 'data' and 'input' are set and not equal. Please use 'input' to pass transaction call data")
  }
  const args: CallArgs = {
    from: field(obj, 'from', address),
    to: field(obj, 'to', address),
    gas: gas ?? gasLimit,
    gasPrice: field(obj, 'gasPrice', quantity),
    maxFeePerGas: field(obj, 'maxFeePerGas', quantity),
    maxPriorityFeePerGas: field(obj, 'maxPriorityFeePerGas', quantity),
    value: field(obj, 'value', quantity),
    input: input ?? dataField,
    nonce: field(obj, 'nonce', uint64),
    accessList: field(obj, 'accessList', accessList),
    authorizationList: field(obj, 'authorizationList', authorizationList),
    chainId: field(obj, 'chainId', quantity),
  }
  if (args.gasPrice !== undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined)) {
    throw new DecodeError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (args.maxFeePerGas !== undefined && args.maxPriorityFeePerGas !== undefined && args.maxFeePerGas < args.maxPriorityFeePerGas) {
    throw new DecodeError(`maxFeePerGas (${args.maxFeePerGas}) < maxPriorityFeePerGas (${args.maxPriorityFeePerGas})`)
  }
  return args
}
