/**
 * Bad-input cases per parameter codec, for the table-driven test of every served method
 * (test/e2e/bad-params.test.ts). A method's parameters are found from the method tables, each codec
 * is looked up here by identity, so a new method built from known codecs is covered without an edit;
 * a new codec fails the test until it gets its cases.
 *
 * Expected reasons are geth's (`rpc/json.go parseArgumentArray` + `encoding/json` + `hexutil`): the
 * reply is `-32602 invalid argument N: <reason>`. `accepts` lists values geth takes although they
 * look wrong: Go leaves a non-pointer argument at its zero value for a JSON null (a bool is false, a
 * string '', a slice nil, a struct empty), and optional (pointer) arguments may always be null.
 */
import type { EthBackend } from '../../src/api/eth/backend.js'
import { blockNumberOrTag, blockSelector } from '../../src/api/eth/block-params.js'
import { callArgs } from '../../src/api/eth/call-args.js'
import { simulatePayload } from '../../src/api/eth/simulate-params.js'
import { blockOverrides, stateOverrides } from '../../src/api/eth/eth-execute.js'
import { rewardPercentiles } from '../../src/api/eth/eth-fees.js'
import { filterId } from '../../src/api/eth/eth-filters.js'
import { storageKeys } from '../../src/api/eth/eth-proof.js'
import { storageKeyText, storageRequests } from '../../src/api/eth/eth-state.js'
import { blockCount } from '../../src/api/eth/fee-history.js'
import { createEthApi, defaultEthApiOptions } from '../../src/api/eth/index.js'
import { logFilter } from '../../src/api/eth/log-filter.js'
import { threadCount } from '../../src/api/eth/miner.js'
import { typedDataDigest } from '../../src/api/eth/eth-signing.js'
import { unlockDuration } from '../../src/api/eth/personal.js'
import { sendArgs } from '../../src/api/eth/send-args.js'
import { address, any, bool, data, hash, quantity, string, uint, uint64, type Codec } from '../../src/rpc/codecs.js'
import type { MethodDef } from '../../src/rpc/method-table.js'

/** A value geth refuses as an argument, with the reason after `invalid argument N: `. */
export interface BadValue {
  value: unknown
  reason: string
}

/** What the table knows about one codec. */
export interface ParamKind {
  /** A value that decodes, to fill the other positions. */
  valid: unknown
  bad: BadValue[]
  /** Values geth accepts (the call may still fail, but not with -32602). */
  accepts: unknown[]
}

const unmarshal = (kind: string, goType: string): string => `json: cannot unmarshal ${kind} into Go value of type ${goType}`
const inField = (kind: string, struct: string, field: string, goType: string): string =>
  `json: cannot unmarshal ${kind} into Go struct field ${struct}.${field} of type ${goType}`

/** common.Address / common.Hash (`hexutil.UnmarshalFixedJSON`). */
function fixedHex(bytes: number, goType: string): ParamKind {
  return {
    valid: '0x' + '00'.repeat(bytes),
    bad: [
      { value: 1, reason: unmarshal('non-string', goType) },
      { value: {}, reason: unmarshal('non-string', goType) },
      { value: null, reason: unmarshal('non-string', goType) },
      { value: '0x' + '11'.repeat(bytes + 1), reason: `hex string has length ${2 * bytes + 2}, want ${2 * bytes} for ${goType}` },
      { value: '0x' + '1'.repeat(2 * bytes - 1), reason: unmarshal('hex string of odd length', goType) },
      { value: '0x' + 'zz'.repeat(bytes), reason: unmarshal('invalid hex string', goType) },
      { value: '11'.repeat(bytes), reason: unmarshal('hex string without 0x prefix', goType) },
    ],
    accepts: [],
  }
}

/** hexutil.Big / Uint64 / Uint (`checkNumberText`). */
function hexNumber(goType: string, bits: 64 | 256): ParamKind {
  return {
    valid: '0x1',
    bad: [
      { value: 1, reason: unmarshal('non-string', goType) },
      { value: {}, reason: unmarshal('non-string', goType) },
      { value: null, reason: unmarshal('non-string', goType) },
      { value: '', reason: unmarshal('empty hex string', goType) },
      { value: '0x', reason: unmarshal('hex string "0x"', goType) },
      { value: '12', reason: unmarshal('hex string without 0x prefix', goType) },
      { value: '0x01', reason: unmarshal('hex number with leading zero digits', goType) },
      { value: '0xzz', reason: unmarshal('invalid hex string', goType) },
      { value: '0x1' + '0'.repeat(bits / 4), reason: unmarshal(`hex number > ${bits} bits`, goType) },
    ],
    accepts: [],
  }
}

/** rpc.BlockNumber: the raw JSON text is parsed, so a JSON number lacks its 0x prefix. */
const blockNumberKind: ParamKind = {
  valid: 'latest',
  bad: [
    { value: 1, reason: 'hex string without 0x prefix' },
    { value: {}, reason: 'hex string without 0x prefix' },
    { value: null, reason: 'hex string without 0x prefix' },
    { value: 'newest', reason: 'hex string without 0x prefix' },
    { value: '', reason: 'empty hex string' },
    { value: '0x', reason: 'hex string "0x"' },
    { value: '0x01', reason: 'hex number with leading zero digits' },
    { value: '0xzz', reason: 'invalid hex string' },
    { value: '0x1' + '0'.repeat(16), reason: 'hex number > 64 bits' },
    { value: '0x8000000000000000', reason: 'block number larger than int64' },
  ],
  accepts: ['earliest', 'safe', 'finalized', 'pending', '0x0'],
}

/**
 * rpc.BlockNumberOrHash (EIP-1898). Not listed: `{}` and a required `null`, which geth decodes and then
 * refuses with -32000 `invalid arguments; neither block nor hash specified`; nodectl refuses them as
 * the invalid argument they are, with the same text.
 */
const blockSelectorKind: ParamKind = {
  valid: 'latest',
  bad: [
    { value: 1, reason: unmarshal('number', 'string') },
    { value: true, reason: unmarshal('bool', 'string') },
    { value: [], reason: unmarshal('array', 'string') },
    { value: 'newest', reason: 'hex string without 0x prefix' },
    { value: '0x01', reason: 'hex number with leading zero digits' },
    { value: '0x8000000000000000', reason: 'blocknumber too high' },
    { value: '0x' + 'zz'.repeat(32), reason: 'invalid hex string' },
    {
      value: { blockNumber: '0x1', blockHash: '0x' + '00'.repeat(32) },
      reason: 'cannot specify both BlockHash and BlockNumber, choose one or the other',
    },
  ],
  accepts: ['safe', 'finalized', { blockNumber: '0x0' }],
}

const TX_ARGS = 'ethapi.TransactionArgs'
const STORAGE_REQUESTS = 'map[common.Address][]common.Hash'
const callArgsKind: ParamKind = {
  valid: {},
  bad: [
    { value: 1, reason: unmarshal('number', TX_ARGS) },
    { value: 'x', reason: unmarshal('string', TX_ARGS) },
    { value: [], reason: unmarshal('array', TX_ARGS) },
    { value: { gas: 1 }, reason: inField('non-string', 'TransactionArgs', 'gas', 'hexutil.Uint64') },
    { value: { to: '0x123' }, reason: inField('hex string of odd length', 'TransactionArgs', 'to', 'common.Address') },
    { value: { to: '0x' + '11'.repeat(21) }, reason: 'hex string has length 42, want 40 for common.Address' },
    { value: { value: '0x01' }, reason: inField('hex number with leading zero digits', 'TransactionArgs', 'value', '*hexutil.Big') },
    { value: { input: '0xzz' }, reason: inField('invalid hex string', 'TransactionArgs', 'input', 'hexutil.Bytes') },
  ],
  accepts: [null],
}

const MISSING_FROM = "missing required field 'from' for TransactionArgs"
/** The call object of the signing methods: `from` required (send-args.ts). */
const sendArgsKind: ParamKind = {
  valid: { from: '0x' + '00'.repeat(20) },
  bad: [
    { value: 1, reason: unmarshal('number', TX_ARGS) },
    { value: [], reason: unmarshal('array', TX_ARGS) },
    { value: null, reason: MISSING_FROM },
    { value: {}, reason: MISSING_FROM },
    { value: { to: '0x' + '11'.repeat(20) }, reason: MISSING_FROM },
    { value: { from: '0x12' }, reason: 'hex string has length 2, want 40 for common.Address' },
    { value: { from: '0x' + '11'.repeat(20), gas: '0x1', gasLimit: '0x2' }, reason: "both 'gas' and 'gasLimit' are set and not equal" },
  ],
  accepts: [],
}

/** A minimal EIP-712 document. */
const TYPED_DATA = {
  types: { EIP712Domain: [{ name: 'name', type: 'string' }], Note: [{ name: 'text', type: 'string' }] },
  primaryType: 'Note',
  domain: { name: 'n' },
  message: { text: 't' },
}
const typedDataKind: ParamKind = {
  valid: TYPED_DATA,
  bad: [
    { value: 1, reason: 'typed data must be an object' },
    { value: {}, reason: 'typed data "types" must be an object' },
    { value: { ...TYPED_DATA, primaryType: 'Missing' }, reason: 'primary type "Missing" is undefined' },
  ],
  // MetaMask, ethers and viem send the document as a JSON string.
  accepts: [JSON.stringify(TYPED_DATA)],
}

const FILTER_INPUT = 'filters.input'
const logFilterKind: ParamKind = {
  valid: {},
  bad: [
    { value: 1, reason: unmarshal('number', FILTER_INPUT) },
    { value: 'x', reason: unmarshal('string', FILTER_INPUT) },
    { value: [], reason: unmarshal('array', FILTER_INPUT) },
    { value: { address: 1 }, reason: 'invalid addresses in query' },
    { value: { address: '0x12' }, reason: 'invalid address: hex has invalid length 1 after decoding; expected 20 for address' },
    { value: { address: [1] }, reason: 'non-string address at index 0' },
    { value: { topics: 'x' }, reason: inField('string', 'input', 'topics', '[]interface {}') },
    { value: { topics: [1] }, reason: 'invalid topic(s)' },
    { value: { topics: ['0x12'] }, reason: 'hex has invalid length 1 after decoding; expected 32 for topic' },
    { value: { fromBlock: 1 }, reason: 'hex string without 0x prefix' },
    { value: { blockHash: '0x1' }, reason: inField('hex string of odd length', 'input', 'blockHash', 'common.Hash') },
    {
      value: { blockHash: '0x' + '00'.repeat(32), fromBlock: '0x1' },
      reason: 'cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
    },
  ],
  accepts: [null],
}

/** Codec → cases. Keys are the codec functions the method tables use. */
const SIM_OPTS = 'ethapi.simOpts'
const simulatePayloadKind: ParamKind = {
  valid: { blockStateCalls: [{}] },
  bad: [
    { value: 1, reason: unmarshal('number', SIM_OPTS) },
    { value: 'x', reason: unmarshal('string', SIM_OPTS) },
    { value: [], reason: unmarshal('array', SIM_OPTS) },
    { value: { blockStateCalls: 1 }, reason: inField('number', 'simOpts', 'blockStateCalls', '[]ethapi.simBlock') },
    { value: { validation: 'yes' }, reason: inField('string', 'simOpts', 'validation', 'bool') },
    { value: { blockStateCalls: [{ calls: [{ gas: 1 }] }] }, reason: inField('non-string', 'TransactionArgs', 'gas', 'hexutil.Uint64') },
  ],
  accepts: [{ blockStateCalls: [{ calls: [{}] }], traceTransfers: true }],
}

export const PARAM_KINDS = new Map<Codec<unknown>, ParamKind>([
  [address, fixedHex(20, 'common.Address')],
  [hash, fixedHex(32, 'common.Hash')],
  [quantity, hexNumber('*hexutil.Big', 256)],
  [uint64, hexNumber('hexutil.Uint64', 64)],
  [uint, { ...hexNumber('hexutil.Uint', 64), valid: '0x0' }],
  [
    data,
    {
      valid: '0x',
      bad: [
        { value: 1, reason: unmarshal('non-string', 'hexutil.Bytes') },
        { value: [], reason: unmarshal('non-string', 'hexutil.Bytes') },
        { value: null, reason: unmarshal('non-string', 'hexutil.Bytes') },
        { value: '0x123', reason: unmarshal('hex string of odd length', 'hexutil.Bytes') },
        { value: '1234', reason: unmarshal('hex string without 0x prefix', 'hexutil.Bytes') },
        { value: '0xzz', reason: unmarshal('invalid hex string', 'hexutil.Bytes') },
      ],
      accepts: [],
    },
  ],
  [
    bool,
    {
      valid: false,
      bad: [
        { value: 1, reason: unmarshal('number', 'bool') },
        { value: 'true', reason: unmarshal('string', 'bool') },
        { value: {}, reason: unmarshal('object', 'bool') },
      ],
      accepts: [null],
    },
  ],
  [
    string,
    {
      valid: '',
      bad: [
        { value: 1, reason: unmarshal('number', 'string') },
        { value: {}, reason: unmarshal('object', 'string') },
        { value: true, reason: unmarshal('bool', 'string') },
      ],
      accepts: [null],
    },
  ],
  [
    storageKeyText,
    {
      valid: '0x0',
      bad: [
        { value: 1, reason: unmarshal('number', 'string') },
        { value: [], reason: unmarshal('array', 'string') },
      ],
      // decodeHash is lenient: no prefix, odd length (left-padded), empty = slot 0.
      accepts: [null, '1', '0x123', ''],
    },
  ],
  [
    storageRequests,
    {
      valid: { ['0x' + '00'.repeat(20)]: ['0x0'] },
      bad: [
        { value: 1, reason: unmarshal('number', STORAGE_REQUESTS) },
        { value: [], reason: unmarshal('array', STORAGE_REQUESTS) },
        { value: { '0x12': ['0x0'] }, reason: 'hex string has length 2, want 40 for common.Address' },
        { value: { ['0x' + '00'.repeat(20)]: '0x0' }, reason: unmarshal('string', '[]common.Hash') },
        { value: { ['0x' + '00'.repeat(20)]: ['0xzz'] }, reason: 'storage key "0xzz": hex string invalid' },
        {
          value: { ['0x' + '00'.repeat(20)]: ['0x' + '11'.repeat(33)] },
          reason: `storage key "0x${'11'.repeat(33)}": hex string too long, want at most 32 bytes`,
        },
      ],
      // The spec's bytesMax32: up to 64 digits, odd counts left-padded, `0x` alone slot 0. (A null is
      // Go's nil map, refused as `empty request`.)
      accepts: [{ ['0x' + '00'.repeat(20)]: ['0x', '0x1', '0x' + '11'.repeat(32)] }],
    },
  ],
  [blockNumberOrTag, blockNumberKind],
  [blockSelector, blockSelectorKind],
  [callArgs, callArgsKind],
  [simulatePayload, simulatePayloadKind],
  [logFilter, logFilterKind],
  [
    filterId,
    {
      valid: '0x1',
      bad: [
        { value: 1, reason: unmarshal('number', 'rpc.ID') },
        { value: {}, reason: unmarshal('object', 'rpc.ID') },
      ],
      accepts: [null, ''],
    },
  ],
  [
    blockCount,
    {
      valid: '0x1',
      bad: [
        { value: {}, reason: 'invalid hex or decimal integer "{}"' },
        { value: true, reason: 'invalid hex or decimal integer "true"' },
        { value: null, reason: 'invalid hex or decimal integer "null"' },
        { value: 'x', reason: 'invalid hex or decimal integer "x"' },
        { value: '0xzz', reason: 'invalid hex or decimal integer "0xzz"' },
        { value: -1, reason: 'invalid hex or decimal integer "-1"' },
      ],
      // math.HexOrDecimal64: JSON numbers and decimal strings too.
      accepts: [1, '1'],
    },
  ],
  [
    rewardPercentiles,
    {
      valid: [],
      bad: [
        { value: 1, reason: unmarshal('number', '[]float64') },
        { value: {}, reason: unmarshal('object', '[]float64') },
        { value: ['a'], reason: unmarshal('string', 'float64') },
      ],
      accepts: [null],
    },
  ],
  [
    storageKeys,
    {
      valid: [],
      bad: [
        { value: 1, reason: unmarshal('number', '[]string') },
        { value: '0x1', reason: unmarshal('string', '[]string') },
        { value: [1], reason: unmarshal('number', 'string') },
      ],
      accepts: [null, ['1']],
    },
  ],
  [
    stateOverrides,
    {
      valid: {},
      bad: [
        { value: 1, reason: unmarshal('number', 'override.StateOverride') },
        { value: [], reason: unmarshal('array', 'override.StateOverride') },
      ],
      accepts: [],
    },
  ],
  [
    blockOverrides,
    {
      valid: {},
      bad: [
        { value: 1, reason: unmarshal('number', 'override.BlockOverrides') },
        { value: 'x', reason: unmarshal('string', 'override.BlockOverrides') },
      ],
      accepts: [],
    },
  ],
  [sendArgs, sendArgsKind],
  [typedDataDigest, typedDataKind],
  [
    unlockDuration,
    {
      valid: 1,
      bad: [
        { value: '0x1', reason: unmarshal('string', 'uint64') },
        { value: -1, reason: unmarshal('number -1', 'uint64') },
        { value: 1.5, reason: unmarshal('number 1.5', 'uint64') },
        { value: {}, reason: unmarshal('object', 'uint64') },
      ],
      accepts: [0],
    },
  ],
  [
    threadCount,
    {
      valid: 1,
      bad: [
        { value: '0x1', reason: unmarshal('string', 'int') },
        { value: 1.5, reason: unmarshal('number 1.5', 'int') },
        { value: {}, reason: unmarshal('object', 'int') },
      ],
      accepts: [],
    },
  ],
])

/**
 * The codec of eth_subscribe / eth_unsubscribe: they read their arguments themselves, after the
 * transport check (HTTP answers `notifications not supported`); test/e2e/bad-params.test.ts checks
 * them over WebSocket.
 */
export const SELF_DECODED = any

/** Every method of the tables, all namespaces; the backend is never called while building them. */
export function listAllMethods(): MethodDef[] {
  const backend = new Proxy(
    { chainId: 31337n, version: '0.0.0' },
    {
      get(target, key) {
        if (key in target) return target[key as keyof typeof target]
        throw new Error(`building the method tables read backend.${String(key)}`)
      },
    },
  ) as unknown as EthBackend
  return createEthApi(backend, defaultEthApiOptions).flat()
}
