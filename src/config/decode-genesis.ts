/**
 * Decoding and validation of genesis.json (CometBFT `GenesisDoc.ValidateAndComplete`, plus the
 * top level of nodectl's app_state). Every failure is a ConfigError whose message reads
 * `genesis.json: <field path>: <reason>`.
 */
import { ed25519Address } from '../crypto/index.js'
import { isAddress } from '../primitives/address.js'
import { base64ToBytes, bytesToUpperHex, equalBytes, hexToBytes } from '../primitives/hex.js'
import { ConfigError } from '../utils/errors.js'
import { parseRfc3339, type Timestamp } from '../utils/time.js'
import { parseChainId } from './chain-id.js'
import { decodeConsensusParams, readInt64, readObject } from './consensus-params.js'
import { PUBKEY_ED25519_TYPE, type GenesisDoc, type GenesisValidator } from './genesis-doc.js'

/** CometBFT `MaxTotalVotingPower` (int64 max / 8). */
const MAX_TOTAL_VOTING_POWER = 1152921504606846975n

/** ed25519 public key length. */
const ED25519_PUBKEY_BYTES = 32

/** Decodes a parsed genesis.json; throws ConfigError('genesis.json', '<field>: <reason>'). */
export function decodeGenesis(json: unknown): GenesisDoc {
  try {
    return decode(json)
  } catch (err) {
    if (err instanceof ConfigError) throw err
    throw new ConfigError('genesis.json', (err as Error).message)
  }
}

function decode(json: unknown): GenesisDoc {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('want a JSON object')
  const root = json as Record<string, unknown>

  if (typeof root.genesis_time !== 'string') throw new Error('genesis_time: want an RFC3339 time string such as "2024-01-01T00:00:00Z"')
  let genesisTime: Timestamp
  try {
    genesisTime = parseRfc3339(root.genesis_time)
  } catch {
    throw new Error(`genesis_time: cannot parse ${JSON.stringify(root.genesis_time)} as an RFC3339 time`)
  }

  if (typeof root.chain_id !== 'string' || root.chain_id === '') throw new Error('chain_id: must be a non-empty string')
  let evmChainId: bigint
  try {
    evmChainId = parseChainId(root.chain_id)
  } catch (err) {
    throw new Error(`chain_id: ${(err as Error).message}`)
  }

  // CometBFT: a missing or zero initial height means 1.
  let initialHeight = root.initial_height === undefined ? 1n : readInt64(root, 'initial_height', 'initial_height')
  if (initialHeight < 0n) throw new Error(`initial_height: must not be negative, got ${initialHeight}`)
  if (initialHeight === 0n) initialHeight = 1n
  if (initialHeight > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`initial_height: must be at most ${Number.MAX_SAFE_INTEGER}`)

  const consensusParams = decodeConsensusParams(root.consensus_params)
  const validators = decodeValidators(root.validators)

  let appHash: Uint8Array = new Uint8Array()
  if (root.app_hash !== undefined && root.app_hash !== '') {
    if (typeof root.app_hash !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(root.app_hash))
      throw new Error('app_hash: want upper-case hex or ""')
    appHash = hexToBytes(root.app_hash)
  }

  const appState = readObject(root, 'app_state', 'app_state')
  checkAppState(appState)

  return {
    genesisTime,
    chainId: root.chain_id,
    evmChainId,
    initialHeight: Number(initialHeight),
    consensusParams,
    validators,
    appHash,
    appState,
  }
}

function decodeValidators(raw: unknown): GenesisValidator[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new Error('validators: at least one validator is required')
  const seen = new Set<string>()
  let total = 0n
  return raw.map((v: unknown, i) => {
    const field = `validators[${i}]`
    if (typeof v !== 'object' || v === null) throw new Error(`${field}: want an object`)
    const obj = v as Record<string, unknown>
    const pk = readObject(obj, 'pub_key', `${field}.pub_key`)
    if (pk.type !== PUBKEY_ED25519_TYPE)
      throw new Error(`${field}.pub_key.type: want "${PUBKEY_ED25519_TYPE}", got ${JSON.stringify(pk.type)}`)
    const pubKey = typeof pk.value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(pk.value) ? base64ToBytes(pk.value) : new Uint8Array()
    if (pubKey.length !== ED25519_PUBKEY_BYTES)
      throw new Error(`${field}.pub_key.value: want the base64 of a ${ED25519_PUBKEY_BYTES}-byte ed25519 key`)
    const address = ed25519Address(pubKey)
    if (obj.address !== undefined && obj.address !== '') {
      if (typeof obj.address !== 'string' || !/^[0-9a-fA-F]{40}$/.test(obj.address) || !equalBytes(hexToBytes(obj.address), address)) {
        throw new Error(`${field}.address: ${JSON.stringify(obj.address)} is not the address of pub_key (${bytesToUpperHex(address)})`)
      }
    }
    const power = readInt64(obj, 'power', `${field}.power`)
    if (power <= 0n) throw new Error(`${field}.power: must be positive, got ${power}`)
    total += power
    if (total > MAX_TOTAL_VOTING_POWER) throw new Error(`validators: total voting power exceeds ${MAX_TOTAL_VOTING_POWER}`)
    const key = bytesToUpperHex(pubKey)
    if (seen.has(key)) throw new Error(`${field}.pub_key: duplicate validator ${bytesToUpperHex(address)}`)
    seen.add(key)
    if (obj.name !== undefined && typeof obj.name !== 'string') throw new Error(`${field}.name: want a string`)
    return { address, pubKey, power, name: (obj.name as string | undefined) ?? '' }
  })
}

/** Checks the top level of app_state: `evm.accounts`, `evm.validator_admin`, `evm.fee_recipients`, `fee_market`. */
function checkAppState(appState: Record<string, unknown>): void {
  const evm = readObject(appState, 'evm', 'app_state.evm')
  readObject(appState, 'fee_market', 'app_state.fee_market')
  const accounts = evm.accounts ?? []
  if (!Array.isArray(accounts)) throw new Error('app_state.evm.accounts: want a list')
  const seen = new Set<string>()
  accounts.forEach((a: unknown, i) => {
    const field = `app_state.evm.accounts[${i}]`
    if (typeof a !== 'object' || a === null) throw new Error(`${field}: want an object`)
    const acc = a as Record<string, unknown>
    if (!isAddress(acc.address))
      throw new Error(`${field}.address: want a 0x-prefixed 20-byte hex address, got ${JSON.stringify(acc.address)}`)
    const lower = acc.address.toLowerCase()
    if (seen.has(lower)) throw new Error(`${field}.address: duplicate account ${acc.address}`)
    seen.add(lower)
    if (typeof acc.balance !== 'string' || !/^[0-9]+$/.test(acc.balance))
      throw new Error(`${field}.balance: want a decimal wei amount as a string, got ${JSON.stringify(acc.balance)}`)
    if (acc.nonce !== undefined && (typeof acc.nonce !== 'string' || !/^[0-9]+$/.test(acc.nonce)))
      throw new Error(`${field}.nonce: want a decimal string, got ${JSON.stringify(acc.nonce)}`)
  })
  if (evm.validator_admin !== undefined && !isAddress(evm.validator_admin))
    throw new Error(`app_state.evm.validator_admin: want a 0x-prefixed 20-byte hex address, got ${JSON.stringify(evm.validator_admin)}`)
  if (evm.fee_recipients !== undefined) readObject(evm, 'fee_recipients', 'app_state.evm.fee_recipients')
}
