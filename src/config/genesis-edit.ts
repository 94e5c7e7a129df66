import { ed25519Address } from '../crypto/index.js'
import { toChecksumAddress } from '../primitives/address.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import { writeFileAtomic } from '../utils/files.js'
import { ConfigError } from '../utils/errors.js'
import { decodeGenesis } from './decode-genesis.js'
import { encodeGenesis, loadGenesis, type GenesisAccount, type GenesisDoc, type GenesisValidator } from './genesis.js'

/** genesis.json stays world-readable, as `init` writes it. */
const GENESIS_FILE_MODE = 0o644

/** Adds a funded account to `app_state.evm.accounts`; refuses an address already there. */
export async function addGenesisAccount(path: string, account: GenesisAccount): Promise<GenesisDoc> {
  const doc = await loadGenesis(path)
  const evm = doc.appState.evm as { accounts?: { address: string; balance: string; nonce?: string }[] }
  const accounts = evm.accounts ?? []
  const address = toChecksumAddress(account.address)
  if (accounts.some((a) => a.address.toLowerCase() === address.toLowerCase()))
    throw new ConfigError('genesis.json', `account ${address} is already in app_state.evm.accounts`)
  evm.accounts = [...accounts, { address, balance: account.balance.toString(), nonce: (account.nonce ?? 0n).toString() }]
  return saveEdited(path, doc)
}

/** A validator to add: its ed25519 public key (32 bytes), power (> 0) and name. */
export interface NewGenesisValidator {
  pubKey: Uint8Array
  power: bigint
  name?: string
}

/** Appends a validator to `validators`; refuses a public key already there. */
export async function addGenesisValidator(path: string, validator: NewGenesisValidator): Promise<GenesisValidator> {
  const doc = await loadGenesis(path)
  const address = ed25519Address(validator.pubKey)
  if (doc.validators.some((v) => equalBytes(v.pubKey, validator.pubKey)))
    throw new ConfigError('genesis.json', `validator ${bytesToUpperHex(address)} is already in validators`)
  const added: GenesisValidator = { address, pubKey: validator.pubKey, power: validator.power, name: validator.name ?? '' }
  doc.validators.push(added)
  await saveEdited(path, doc)
  return added
}

/** Checks the edited document with the node's decoder, then replaces the file atomically. */
async function saveEdited(path: string, doc: GenesisDoc): Promise<GenesisDoc> {
  const text = encodeGenesis(doc)
  const checked = decodeGenesis(JSON.parse(text))
  await writeFileAtomic(path, text, GENESIS_FILE_MODE)
  return checked
}
