/**
 * `config/genesis.json`: CometBFT's GenesisDoc (cmtjson: int64 as decimal strings, keys base64,
 * addresses upper-case hex) with nodectl's `app_state`:
 *
 *   { "evm": { "accounts": [{ "address": "0x…", "balance": "<wei>", "nonce": "0" }],
 *              "validator_admin": "0x…", "fee_recipients": {} },
 *     "fee_market": { "base_fee": "1000000000", "elasticity_multiplier": 2,
 *                     "base_fee_change_denominator": 8, "min_gas_price": "0", "no_base_fee": false } }
 *
 * This module writes app_state and checks its top level; `evm/genesis.ts` interprets it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { GenesisConsensusParams as ConsensusParams } from './genesis-doc.js'
import { ed25519Address } from '../crypto/index.js'
import { ZERO_ADDRESS, toChecksumAddress } from '../primitives/address.js'
import { bytesToBase64, bytesToUpperHex } from '../primitives/hex.js'
import { ConfigError } from '../utils/errors.js'
import { formatRfc3339Nano, now, type Timestamp } from '../utils/time.js'
import { defaultConsensusParams, encodeConsensusParams } from './consensus-params.js'
import { decodeGenesis } from './decode-genesis.js'
import { cannotRead } from './genesis-file.js'
import { DEFAULT_VALIDATOR_POWER, PUBKEY_ED25519_TYPE, type GenesisAccount, type GenesisDoc } from './genesis-doc.js'

export * from './genesis-doc.js'
export { decodeGenesis } from './decode-genesis.js'
export { defaultConsensusParams, encodeConsensusParams } from './consensus-params.js'

/** Initial EIP-1559 base fee: 1 gwei (Evmos fee market default). */
export const DEFAULT_BASE_FEE_WEI = 1_000_000_000n

/** Options of {@link createGenesis}. */
export interface CreateGenesisOptions {
  /** `<name>_<EVM chain id>-<version>`. */
  chainId: string
  /** Public keys of the validators; power defaults to {@link DEFAULT_VALIDATOR_POWER}. */
  validators: { pubKey: Uint8Array; power?: bigint; name?: string }[]
  /** Funded accounts (default none). */
  accounts?: GenesisAccount[]
  /** Account allowed to change the validator set (default the zero address: nobody). */
  validatorAdmin?: string
  /** Default now. */
  genesisTime?: Timestamp
  /** Default {@link defaultConsensusParams}. */
  consensusParams?: ConsensusParams
  /** Initial base fee in wei (default 1 gwei). */
  baseFee?: bigint
}

/** Builds a validated genesis document; throws a ConfigError('genesis.json', …) when an input is invalid. */
export function createGenesis(opts: CreateGenesisOptions): GenesisDoc {
  const json = {
    genesis_time: formatRfc3339Nano(opts.genesisTime ?? now()),
    chain_id: opts.chainId,
    initial_height: '1',
    consensus_params: encodeConsensusParams(opts.consensusParams ?? defaultConsensusParams()),
    validators: opts.validators.map((v) => ({
      address: bytesToUpperHex(ed25519Address(v.pubKey)),
      pub_key: { type: PUBKEY_ED25519_TYPE, value: bytesToBase64(v.pubKey) },
      power: (v.power ?? DEFAULT_VALIDATOR_POWER).toString(),
      name: v.name ?? '',
    })),
    app_hash: '',
    app_state: {
      evm: {
        accounts: (opts.accounts ?? []).map((a) => ({
          address: toChecksumAddress(a.address),
          balance: a.balance.toString(),
          nonce: (a.nonce ?? 0n).toString(),
        })),
        validator_admin: toChecksumAddress(opts.validatorAdmin ?? ZERO_ADDRESS),
        fee_recipients: {},
      },
      fee_market: {
        base_fee: (opts.baseFee ?? DEFAULT_BASE_FEE_WEI).toString(),
        // EIP-1559's ELASTICITY_MULTIPLIER and BASE_FEE_MAX_CHANGE_DENOMINATOR.
        elasticity_multiplier: 2,
        base_fee_change_denominator: 8,
        min_gas_price: '0',
        no_base_fee: false,
      },
    },
  }
  return decodeGenesis(json)
}

/** The genesis document as CometBFT writes it (2-space indent, trailing newline); not of a node's document, whose accounts stayed in the file. */
export function encodeGenesis(doc: GenesisDoc): string {
  if (doc.source) throw new Error('encodeGenesis: the document was loaded without its accounts (loadNodeGenesis); load it with loadGenesis')
  const json = {
    genesis_time: formatRfc3339Nano(doc.genesisTime),
    chain_id: doc.chainId,
    initial_height: doc.initialHeight.toString(),
    consensus_params: encodeConsensusParams(doc.consensusParams),
    validators: doc.validators.map((v) => ({
      address: bytesToUpperHex(v.address),
      pub_key: { type: PUBKEY_ED25519_TYPE, value: bytesToBase64(v.pubKey) },
      power: v.power.toString(),
      name: v.name,
    })),
    app_hash: bytesToUpperHex(doc.appHash),
    app_state: doc.appState,
  }
  return JSON.stringify(json, null, 2) + '\n'
}

/** Writes genesis.json (mode 0644, parent created). */
export async function saveGenesis(path: string, doc: GenesisDoc): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, encodeGenesis(doc), { mode: 0o644 })
}

/**
 * Reads and validates the whole of genesis.json; every problem is a ConfigError naming `genesis.json`
 * and the field. A node reads it with loadNodeGenesis (genesis-file.ts), which leaves the accounts in the file.
 */
export async function loadGenesis(path: string): Promise<GenesisDoc> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw cannotRead(path, err)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new ConfigError('genesis.json', `malformed JSON: ${(err as Error).message}`)
  }
  return decodeGenesis(json)
}
