/**
 * `nodectl genesis add-account` / `add-validator`: edits of config/genesis.json, as the Cosmos SDK's
 * `genesis add-genesis-account` and CometBFT's hand-edited validator list. Each edit reads and decodes
 * the file, refuses a duplicate, decodes the result again (so a file is never left invalid) and
 * replaces the file atomically.
 */
import { open, rename, rm } from 'node:fs/promises'
import { randomBytes, sha256 } from '../crypto/index.js'
import { toChecksumAddress } from '../primitives/address.js'
import { bytesToHex, bytesToUpperHex, equalBytes } from '../primitives/hex.js'
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
  const address = sha256(validator.pubKey).subarray(0, 20)
  if (doc.validators.some((v) => equalBytes(v.pubKey, validator.pubKey)))
    throw new ConfigError('genesis.json', `validator ${bytesToUpperHex(address)} is already in validators`)
  const added: GenesisValidator = { address, pubKey: validator.pubKey, power: validator.power, name: validator.name ?? '' }
  doc.validators.push(added)
  await saveEdited(path, doc)
  return added
}

/** Checks the edited document with the node's decoder, then writes it through a temp file and a rename. */
async function saveEdited(path: string, doc: GenesisDoc): Promise<GenesisDoc> {
  const text = encodeGenesis(doc)
  const checked = decodeGenesis(JSON.parse(text))
  const tmp = `${path}.${bytesToHex(randomBytes(6)).slice(2)}.tmp`
  const handle = await open(tmp, 'wx', GENESIS_FILE_MODE)
  try {
    await handle.writeFile(text, 'utf8')
    await handle.sync()
    await handle.close()
    await rename(tmp, path)
  } catch (err) {
    await handle.close().catch(() => {})
    await rm(tmp, { force: true })
    throw err
  }
  return checked
}
