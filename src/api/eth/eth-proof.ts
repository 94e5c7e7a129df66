/**
 * eth_getProof (EIP-1186) and eth_createAccessList (EIP-2930), as geth answers them.
 *
 * eth_getProof proves against the block's real `stateRoot` (the MPT root after executing it), which
 * Evmos cannot do. Output as geth: `balance`, `nonce` and storage `value` are QUANTITY; a storage key
 * given as 32 bytes is echoed as 32-byte DATA, a shorter one as QUANTITY (geth keeps this for older
 * clients); slots of an account without storage have value 0 and an empty proof. The block parameter
 * is optional (`latest`), as in the execution-apis schema (geth requires it).
 */
import { toQuantity } from '../../primitives/quantity.js'
import { NodeError } from '../../utils/errors.js'
import { address, arrayOf, decodeStorageKey, string } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import type { AccountProof, EthBackend, ExecutionOptions } from './backend.js'
import { blockSelector } from './block-params.js'
import { callArgs } from './call-args.js'
import { encodeData, type AccessListJson } from './format.js'
import type { EthApiOptions } from './options.js'
import { resolveStateHeight } from './resolve-block.js'

/** Bytes of a storage key that geth echoes as DATA rather than QUANTITY. */
const FULL_KEY_BYTES = 32

/** A storage key of eth_getProof: the 32-byte slot and the text geth echoes back for it. */
interface ProofKey {
  slot: Uint8Array
  echo: string
}

/**
 * geth `decodeHash`, remembering how many bytes were given. geth decodes every key before touching the
 * state and answers a bad one with the bare -32000 reason (`hex string invalid`).
 */
function decodeProofKey(text: string): ProofKey {
  let slot: Uint8Array
  try {
    slot = decodeStorageKey(text)
  } catch (err) {
    throw new NodeError((err as Error).message)
  }
  const digits = text.replace(/^0[xX]/, '')
  const given = Math.ceil(digits.length / 2)
  if (given === FULL_KEY_BYTES) return { slot, echo: encodeData(slot) }
  let n = 0n
  for (const byte of slot) n = (n << 8n) | BigInt(byte)
  return { slot, echo: toQuantity(n) }
}

/** The storage keys of eth_getProof: geth `[]string` (null is the empty list). */
export const storageKeys = arrayOf(string, '[]string')

export interface ProofJson {
  address: string
  accountProof: string[]
  balance: string
  codeHash: string
  nonce: string
  storageHash: string
  storageProof: { key: string; value: string; proof: string[] }[]
}

/** A proof as geth's `AccountResult`; `echoes` are the storage keys as they are to be shown. */
export function formatProof(proof: AccountProof, echoes: readonly string[]): ProofJson {
  return {
    address: encodeData(proof.address),
    accountProof: proof.accountProof.map(encodeData),
    balance: toQuantity(proof.balance),
    codeHash: encodeData(proof.codeHash),
    nonce: toQuantity(proof.nonce),
    storageHash: encodeData(proof.storageHash),
    storageProof: proof.storageProof.map((s, i) => ({
      key: echoes[i] ?? encodeData(s.key),
      value: toQuantity(s.value),
      proof: s.proof.map(encodeData),
    })),
  }
}

export interface AccessListResultJson {
  accessList: AccessListJson[]
  gasUsed: string
  /** Present only when the execution failed (geth `omitempty`). */
  error?: string
}

export function createEthProofMethods(backend: EthBackend, options: EthApiOptions): MethodTable {
  const execution: ExecutionOptions = { gasCap: options.gasCap, timeout: options.evmTimeout }
  return [
    defineMethod(
      'eth_getProof',
      [required(address), required(storageKeys), optional(blockSelector, 'latest')],
      async ([account, texts, at]) => {
        const keys = texts.map(decodeProofKey)
        const height = await resolveStateHeight(backend, at)
        const proof = await backend.getProof(
          account,
          keys.map((k) => k.slot),
          height,
        )
        return formatProof(
          proof,
          keys.map((k) => k.echo),
        )
      },
    ),
    // geth's default block is `pending`, which is `latest` for state here.
    defineMethod('eth_createAccessList', [required(callArgs), optional(blockSelector, 'latest')], async ([args, at]) => {
      const height = await resolveStateHeight(backend, at)
      const result = await backend.createAccessList(args, height, execution)
      const out: AccessListResultJson = {
        accessList: result.accessList.map((item) => ({ address: encodeData(item.address), storageKeys: item.storageKeys.map(encodeData) })),
        gasUsed: toQuantity(result.gasUsed),
      }
      if (result.vmError !== undefined) out.error = result.vmError
      return out
    }),
  ]
}
