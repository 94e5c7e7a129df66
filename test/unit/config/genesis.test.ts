import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest'
import type { ConsensusParams } from '../../../src/abci/types.js'
import {
  createGenesis,
  decodeGenesis,
  defaultConsensusParams,
  encodeGenesis,
  loadGenesis,
  saveGenesis,
  type GenesisConsensusParams,
} from '../../../src/config/genesis.js'
import { generateKey } from '../../../src/keystore/validator-key.js'
import { bytesToUpperHex } from '../../../src/primitives/hex.js'
import { ConfigError } from '../../../src/utils/errors.js'

/** Temporary directories made by this file, removed after it. */
const made: string[] = []
const tempDir = async (prefix: string): Promise<string> => {
  const dir = await mkdtemp(prefix)
  made.push(dir)
  return dir
}
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })))
})

const key = generateKey()
const other = generateKey()

/** A JSON object of the document, to read and to break. */
type JsonObject = Record<string, unknown>

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null

/** The value at the dotted `path` below `json` (array indexes are keys too), undefined where the path leads nowhere. */
function valueAt(json: JsonObject, path: string): unknown {
  let node: unknown = json
  for (const part of path.split('.')) node = isObject(node) ? node[part] : undefined
  return node
}

/** The object at `path` below `json`, failing the test when there is none. */
function objectAt(json: JsonObject, path: string): JsonObject {
  const node = valueAt(json, path)
  if (!isObject(node)) throw new Error(`no object at ${path}`)
  return node
}

/** The array at `path` below `json`, failing the test when there is none. */
function arrayAt(json: JsonObject, path: string): unknown[] {
  const node = valueAt(json, path)
  if (!Array.isArray(node)) throw new Error(`no array at ${path}`)
  return node
}

function validJson(): JsonObject {
  return JSON.parse(
    encodeGenesis(
      createGenesis({
        chainId: 'nodectl_9000-1',
        validators: [{ pubKey: key.publicKey, name: 'node0' }],
        accounts: [{ address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', balance: 10n ** 22n }],
        validatorAdmin: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        genesisTime: { seconds: 1_700_000_000, nanos: 123_456_789 },
      }),
    ),
  ) as JsonObject
}

function errorOf(mutate: (g: JsonObject) => void): string {
  const g = validJson()
  mutate(g)
  try {
    decodeGenesis(g)
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error('no error')
}

describe('genesis.json', () => {
  it('declares the same consensus params shape as comet/', () => {
    expectTypeOf<GenesisConsensusParams>().toEqualTypeOf<ConsensusParams>()
  })

  it('writes the CometBFT GenesisDoc with nodectl app_state', () => {
    const json = validJson()
    expect(json.genesis_time).toBe('2023-11-14T22:13:20.123456789Z')
    expect(json.chain_id).toBe('nodectl_9000-1')
    expect(json.initial_height).toBe('1')
    expect(json.consensus_params).toEqual({
      block: { max_bytes: '22020096', max_gas: '30000000' },
      evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
      validator: { pub_key_types: ['ed25519'] },
      version: { app: '0' },
      abci: { vote_extensions_enable_height: '0' },
    })
    expect(json.validators).toEqual([
      {
        address: bytesToUpperHex(key.address),
        pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.from(key.publicKey).toString('base64') },
        power: '10',
        name: 'node0',
      },
    ])
    expect(json.app_hash).toBe('')
    expect(json.app_state).toEqual({
      evm: {
        accounts: [{ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', balance: '10000000000000000000000', nonce: '0' }],
        validator_admin: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        fee_recipients: {},
      },
      fee_market: {
        base_fee: '1000000000',
        elasticity_multiplier: 2,
        base_fee_change_denominator: 8,
        min_gas_price: '0',
        no_base_fee: false,
      },
    })
  })

  it('decodes what it encodes', () => {
    const doc = decodeGenesis(validJson())
    expect(doc.chainId).toBe('nodectl_9000-1')
    expect(doc.evmChainId).toBe(9000n)
    expect(doc.initialHeight).toBe(1)
    expect(doc.genesisTime).toEqual({ seconds: 1_700_000_000, nanos: 123_456_789 })
    expect(doc.consensusParams).toEqual(defaultConsensusParams())
    expect(doc.validators[0]!.power).toBe(10n)
    expect(doc.validators[0]!.address).toEqual(key.address)
    expect(JSON.parse(encodeGenesis(doc))).toEqual(validJson())
  })

  it('applies CometBFT completions: missing consensus_params, initial_height 0', () => {
    const doc = decodeGenesis({ ...validJson(), consensus_params: undefined, initial_height: '0' })
    expect(doc.consensusParams).toEqual(defaultConsensusParams())
    expect(doc.initialHeight).toBe(1)
  })

  it.each<[string, (g: JsonObject) => void, string | RegExp]>([
    ['chain id', (g) => (g.chain_id = 'nodectl-1'), 'genesis.json: chain_id: invalid chain id "nodectl-1"'],
    ['empty chain id', (g) => (g.chain_id = ''), 'genesis.json: chain_id: must be a non-empty string'],
    ['time', (g) => (g.genesis_time = 'yesterday'), 'genesis.json: genesis_time: cannot parse "yesterday"'],
    ['height', (g) => (g.initial_height = 'one'), 'genesis.json: initial_height: want an integer as a decimal string, got "one"'],
    ['negative height', (g) => (g.initial_height = '-1'), 'genesis.json: initial_height: must not be negative'],
    ['no validators', (g) => (g.validators = []), 'genesis.json: validators: at least one validator is required'],
    ['zero power', (g) => (objectAt(g, 'validators.0').power = '0'), 'genesis.json: validators[0].power: must be positive, got 0'],
    [
      'key type',
      (g) => (objectAt(g, 'validators.0.pub_key').type = 'tendermint/PubKeySecp256k1'),
      'genesis.json: validators[0].pub_key.type: want "tendermint/PubKeyEd25519"',
    ],
    [
      'key length',
      (g) => (objectAt(g, 'validators.0.pub_key').value = 'AAAA'),
      'genesis.json: validators[0].pub_key.value: want the base64 of a 32-byte ed25519 key',
    ],
    [
      'address',
      (g) => (objectAt(g, 'validators.0').address = bytesToUpperHex(other.address)),
      /genesis.json: validators\[0\].address: ".*" is not the address of pub_key/,
    ],
    [
      'duplicate',
      (g) => arrayAt(g, 'validators').push({ ...objectAt(g, 'validators.0') }),
      /genesis.json: validators\[1\].pub_key: duplicate validator/,
    ],
    [
      'max_bytes',
      (g) => (objectAt(g, 'consensus_params.block').max_bytes = '0'),
      'genesis.json: consensus_params.block.max_bytes: must be from 1 to 104857600, got 0',
    ],
    [
      'max_gas',
      (g) => (objectAt(g, 'consensus_params.block').max_gas = '-1'),
      'genesis.json: consensus_params.block.max_gas: must be positive',
    ],
    [
      'evidence bytes',
      (g) => (objectAt(g, 'consensus_params.evidence').max_bytes = '30000000'),
      'genesis.json: consensus_params.evidence.max_bytes: must be from 0 to block.max_bytes',
    ],
    [
      'key types',
      (g) => (objectAt(g, 'consensus_params.validator').pub_key_types = ['secp256k1']),
      'genesis.json: consensus_params.validator.pub_key_types: unsupported key type "secp256k1"',
    ],
    [
      'vote extensions',
      (g) => (objectAt(g, 'consensus_params.abci').vote_extensions_enable_height = '5'),
      'genesis.json: consensus_params.abci.vote_extensions_enable_height: vote extensions are not supported',
    ],
    ['app hash', (g) => (g.app_hash = 'xyz'), 'genesis.json: app_hash: want upper-case hex or ""'],
    ['app_state', (g) => delete g.app_state, 'genesis.json: app_state: want an object, got nothing'],
    ['evm', (g) => (objectAt(g, 'app_state').evm = []), 'genesis.json: app_state.evm: want an object'],
    ['fee_market', (g) => delete objectAt(g, 'app_state').fee_market, 'genesis.json: app_state.fee_market: want an object'],
    [
      'account address',
      (g) => (objectAt(g, 'app_state.evm.accounts.0').address = '0x12'),
      'genesis.json: app_state.evm.accounts[0].address: want a 0x-prefixed 20-byte hex address, got "0x12"',
    ],
    [
      'account balance',
      (g) => (objectAt(g, 'app_state.evm.accounts.0').balance = 5),
      'genesis.json: app_state.evm.accounts[0].balance: want a decimal wei amount as a string, got 5',
    ],
    [
      'duplicate account',
      (g) => {
        const first = objectAt(g, 'app_state.evm.accounts.0')
        arrayAt(g, 'app_state.evm.accounts').push({ ...first, address: String(first.address).toLowerCase() })
      },
      /genesis.json: app_state.evm.accounts\[1\].address: duplicate account/,
    ],
    [
      'admin',
      (g) => (objectAt(g, 'app_state.evm').validator_admin = 'alice'),
      'genesis.json: app_state.evm.validator_admin: want a 0x-prefixed 20-byte hex address, got "alice"',
    ],
  ])('names the field: %s', (_name, mutate, message) => {
    const got = errorOf(mutate)
    if (typeof message === 'string') expect(got.startsWith(message), got).toBe(true)
    else expect(got).toMatch(message)
  })

  it('refuses a non-object document', () => {
    expect(() => decodeGenesis([])).toThrow('genesis.json: want a JSON object')
  })

  it('saves and loads, with file errors naming genesis.json', async () => {
    const dir = await tempDir(join(tmpdir(), 'nodectl-genesis-'))
    const doc = decodeGenesis(validJson())
    await saveGenesis(join(dir, 'genesis.json'), doc)
    expect(await loadGenesis(join(dir, 'genesis.json'))).toEqual(doc)
    await expect(loadGenesis(join(dir, 'missing.json'))).rejects.toThrow(
      /^genesis.json: not found at .*missing.json: run "nodectl init <moniker>" first$/,
    )
    await writeFile(join(dir, 'bad.json'), '{"chain_id": ')
    await expect(loadGenesis(join(dir, 'bad.json'))).rejects.toThrow(/^genesis.json: malformed JSON: /)
  })
})
