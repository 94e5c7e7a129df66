import { describe, expect, it } from 'vitest'
import { GO_ZERO_TIME } from '../../../../src/utils/time.js'
import { absentCommitSig } from '../../../../src/comet/commit.js'
import { zeroBlockId } from '../../../../src/comet/part-set.js'
import { SignedMsgType, type Header } from '../../../../src/comet/types.js'
import { base64ToBytes, hexToBytes, utf8ToBytes } from '../../../../src/primitives/hex.js'
import {
  encodeAbciInfo,
  encodeBlockId,
  encodeBytes,
  encodeCommitSig,
  encodeConsensusParamUpdates,
  encodeEvent,
  encodeExecTxResult,
  encodeHeader,
  encodeInt64,
  encodePubKey,
  encodeTime,
  encodeValidatorUpdate,
} from '../../../../src/api/comet/json.js'
import { formatBitArray, formatVote } from '../../../../src/api/comet/json-round-state.js'
import { RawJson, compactJson, stringifyJson } from '../../../../src/api/comet/wire-json.js'
import { goJsonSyntaxError } from '../../../../src/api/comet/go-json-error.js'
import {
  bool,
  bytes,
  decodeJsonParams,
  decodeUriParams,
  evidence,
  hexBytes,
  int64,
  int64Ptr,
  intPtr,
  string,
  uint,
} from '../../../../src/api/comet/params.js'
import { parseRpcRequest } from '../../../../src/api/comet/rpc-request.js'
import { validatePage, validatePerPage } from '../../../../src/api/comet/route.js'
import { filterMinMax } from '../../../../src/api/comet/routes-blocks.js'
import { readGoldenBytes } from '../../../helpers/golden.js'

describe('cmtjson scalars', () => {
  it('int64 as decimal strings, bytes as base64 or null, times in RFC3339Nano UTC', () => {
    expect(encodeInt64(42n)).toBe('42')
    expect(encodeInt64(-7)).toBe('-7')
    expect(encodeBytes(new Uint8Array(0))).toBeNull()
    expect(encodeBytes(utf8ToBytes('foo=bar'))).toBe('Zm9vPWJhcg==')
    expect(encodeTime({ seconds: 1714564805, nanos: 123456789 })).toBe('2024-05-01T12:00:05.123456789Z')
    expect(encodeTime({ seconds: 1714564805, nanos: 500_000_000 })).toBe('2024-05-01T12:00:05.5Z')
    expect(encodeTime({ seconds: 1714564805, nanos: 0 })).toBe('2024-05-01T12:00:05Z')
    expect(encodeTime(GO_ZERO_TIME)).toBe('0001-01-01T00:00:00Z')
  })

  it('typed public keys', () => {
    expect(encodePubKey(new Uint8Array(32).fill(1))).toEqual({
      type: 'tendermint/PubKeyEd25519',
      value: 'AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=',
    })
    expect(encodePubKey(new Uint8Array(33).fill(2)).type).toBe('tendermint/PubKeySecp256k1')
  })

  it('the zero BlockID and an absent CommitSig', () => {
    expect(stringifyJson(encodeBlockId(zeroBlockId()))).toBe('{"hash":"","parts":{"total":0,"hash":""}}')
    expect(stringifyJson(encodeCommitSig(absentCommitSig()))).toBe(
      '{"block_id_flag":1,"validator_address":"","timestamp":"0001-01-01T00:00:00Z","signature":null}',
    )
  })

  it('header: version.app omitted when 0, present otherwise, hashes upper hex', async () => {
    const h: Header = {
      version: { block: 11n, app: 0n },
      chainId: 'c',
      height: 5,
      time: { seconds: 0, nanos: 1 },
      lastBlockId: zeroBlockId(),
      lastCommitHash: hexToBytes('abcd'),
      dataHash: new Uint8Array(0),
      validatorsHash: hexToBytes('01'),
      nextValidatorsHash: hexToBytes('02'),
      consensusHash: hexToBytes('03'),
      appHash: hexToBytes('04'),
      lastResultsHash: hexToBytes('05'),
      evidenceHash: hexToBytes('06'),
      proposerAddress: hexToBytes('ff'),
    }
    const { expected, actual } = await readGoldenBytes('comet/header', stringifyJson(encodeHeader(h)))
    expect(actual).toBe(expected)
    expect(encodeHeader({ ...h, version: { block: 11n, app: 1n } }).version).toEqual({ block: '11', app: '1' })
  })
})

describe('ABCI JSON', () => {
  const result = {
    code: 0,
    data: new Uint8Array(0),
    log: '',
    info: '',
    gasWanted: 0n,
    gasUsed: 0n,
    events: [{ type: 'app', attributes: [{ key: 'key', value: 'foo', index: true }] }],
    codespace: '',
  }

  it('ExecTxResult is jsonpb with every field (the reference example)', async () => {
    const { expected, actual } = await readGoldenBytes('comet/exec-tx-result', stringifyJson(encodeExecTxResult(result)))
    expect(actual).toBe(expected)
    expect(encodeExecTxResult({ ...result, events: [{ type: 'x', attributes: [] }] }).events).toEqual([{ type: 'x', attributes: [] }])
  })

  it('cmtjson events omit empty type and attributes', () => {
    expect(encodeEvent({ type: 'x', attributes: [] })).toEqual({ type: 'x', attributes: undefined })
    expect(stringifyJson(encodeEvent({ type: '', attributes: [] }))).toBe('{}')
  })

  it('validator updates in the Sum form, power omitted when 0', () => {
    const pk = base64ToBytes('ww0z4WaZ0Xg+YI10w43wTWbBmM3dpVza4mmSQYsd0ck=')
    expect(stringifyJson(encodeValidatorUpdate({ pubKey: pk, power: 20n }))).toBe(
      '{"pub_key":{"Sum":{"type":"tendermint.crypto.PublicKey_Ed25519","value":{"ed25519":"ww0z4WaZ0Xg+YI10w43wTWbBmM3dpVza4mmSQYsd0ck="}}},"power":"20"}',
    )
    expect(stringifyJson(encodeValidatorUpdate({ pubKey: pk, power: 0n }))).not.toContain('power')
  })

  it('consensus param updates: proto form with omitempty, null when none', () => {
    expect(encodeConsensusParamUpdates(undefined)).toBeNull()
    const updates = { block: { maxBytes: 5n, maxGas: 0n }, evidence: { maxAgeNumBlocks: 0n, maxAgeDurationNs: 0n, maxBytes: 0n } }
    expect(stringifyJson(encodeConsensusParamUpdates(updates)!)).toBe('{"block":{"max_bytes":"5"},"evidence":{"max_age_duration":"0"}}')
  })

  it('ResponseInfo omits empty fields', () => {
    expect(
      stringifyJson(encodeAbciInfo({ data: '', version: '', appVersion: 0n, lastBlockHeight: 0, lastBlockAppHash: new Uint8Array(0) })),
    ).toBe('{}')
  })
})

describe('round state strings', () => {
  it('formats votes and bit arrays as CometBFT', () => {
    const vote = {
      type: SignedMsgType.Prevote,
      height: 42,
      round: 3,
      blockId: { hash: hexToBytes('0E2D4C1B7B2F6A2A3C1E0D9F'), partSetHeader: { total: 1, hash: new Uint8Array(0) } },
      timestamp: { seconds: 1714564805, nanos: 5 },
      validatorAddress: hexToBytes('A1B2C3D4E5F60718293A4B5C6D7E8F9012345678'),
      validatorIndex: 0,
      signature: hexToBytes('1122'),
    } as const
    expect(formatVote(vote)).toBe(
      'Vote{0:A1B2C3D4E5F6 42/03/SIGNED_MSG_TYPE_PREVOTE(Prevote) 0E2D4C1B7B2F 112200000000 000000000000 @ 2024-05-01T12:00:05.000000005Z}',
    )
    expect(formatVote(undefined)).toBe('nil-Vote')
    expect(formatBitArray([true, false, true])).toBe('BA{3:x_x}')
  })
})

describe('wire JSON', () => {
  it('escapes <, > and & as Go does and inlines raw JSON compacted', () => {
    expect(stringifyJson({ a: '<b>&', u: undefined, r: new RawJson('{ "n": 123456789012345678901234567890 ,"s":"x y" }') })).toBe(
      '{"a":"\\u003cb\\u003e\\u0026","r":{"n":123456789012345678901234567890,"s":"x y"}}',
    )
    expect(compactJson('[ 1 , "a \\" b" ]')).toBe('[1,"a \\" b"]')
  })

  it('Go syntax error texts', () => {
    expect(goJsonSyntaxError('{"a":1}')).toBeUndefined()
    expect(goJsonSyntaxError('abc')).toBe("invalid character 'a' looking for beginning of value")
    expect(goJsonSyntaxError('')).toBe('unexpected end of JSON input')
    expect(goJsonSyntaxError('{"a":1')).toBe('unexpected end of JSON input')
    expect(goJsonSyntaxError('tx')).toBe("invalid character 'x' in literal true (expecting 'r')")
    expect(goJsonSyntaxError('1 2')).toBe("invalid character '2' after top-level value")
    expect(goJsonSyntaxError('{a}')).toBe("invalid character 'a' looking for beginning of object key string")
    expect(goJsonSyntaxError('[1 2]')).toBe("invalid character '2' after array element")
  })
})

describe('param codecs', () => {
  const params = [
    int64Ptr('height'),
    intPtr('page'),
    bool('prove'),
    string('query'),
    bytes('tx'),
    hexBytes('data'),
    int64('min'),
    uint('chunk'),
  ] as const

  it('JSON-RPC: int64 as strings, bytes base64, HexBytes hex, defaults', () => {
    expect(decodeJsonParams(params, { height: '5', page: '2', prove: true, query: 'q', tx: 'Zm9v', data: 'abCD' })).toEqual({
      height: 5n,
      page: 2n,
      prove: true,
      query: 'q',
      tx: utf8ToBytes('foo'),
      data: hexToBytes('abcd'),
      min: 0n,
      chunk: 0n,
    })
    expect(decodeJsonParams(params, null)).toMatchObject({ height: undefined, page: undefined, prove: false, query: '', min: 0n })
    expect(decodeJsonParams([int64Ptr('height')], ['7'])).toEqual({ height: 7n })
  })

  it('JSON-RPC: a JSON number for an int64 is refused, as cmtjson does (issue 27 item 11)', () => {
    expect(() => decodeJsonParams([int64Ptr('height')], { height: 5 })).toThrow('invalid 64-bit integer encoding "5", expected string')
    expect(() => decodeJsonParams([int64Ptr('height')], [1e3])).toThrow('invalid 64-bit integer encoding "1000", expected string')
    expect(() => decodeJsonParams([int64Ptr('height')], ['1e3'])).toThrow('json: cannot unmarshal number 1e3 into Go value of type int64')
  })

  it('JSON-RPC errors read as Go', () => {
    expect(() => decodeJsonParams([int64Ptr('height')], { height: true })).toThrow(
      'invalid 64-bit integer encoding "true", expected string',
    )
    expect(() => decodeJsonParams([int64Ptr('height')], { height: 'x' })).toThrow("invalid character 'x' looking for beginning of value")
    expect(() => decodeJsonParams([int64Ptr('height')], { height: '1.5' })).toThrow(
      'json: cannot unmarshal number 1.5 into Go value of type int64',
    )
    expect(() => decodeJsonParams([int64Ptr('height')], { height: '9223372036854775808' })).toThrow(
      'json: cannot unmarshal number 9223372036854775808 into Go value of type int64',
    )
    expect(() => decodeJsonParams([uint('chunk')], { chunk: '-1' })).toThrow('json: cannot unmarshal number -1 into Go value of type uint')
    expect(() => decodeJsonParams([bool('prove')], { prove: 'true' })).toThrow('json: cannot unmarshal string into Go value of type bool')
    expect(() => decodeJsonParams([bytes('tx')], { tx: 'abc' })).toThrow('illegal base64 data at input byte 0')
    expect(() => decodeJsonParams([bytes('tx')], { tx: 5 })).toThrow('json: cannot unmarshal number into Go value of type []uint8')
    expect(() => decodeJsonParams([hexBytes('data')], { data: 'zz' })).toThrow("encoding/hex: invalid byte: U+007A 'z'")
    expect(() => decodeJsonParams([int64Ptr('height'), bool('prove')], ['1'])).toThrow(
      'expected 2 parameters ([height prove]), got 1 ([[34 49 34]])',
    )
    expect(() => decodeJsonParams([int64Ptr('height')], 'x')).toThrow('unknown type for JSON params')
    expect(() => decodeJsonParams([evidence('evidence')], { evidence: { type: 'x', value: {} } })).toThrow('unknown type "x"')
  })

  it('URI: bare integers, 0x hex, "quoted" raw bytes, JSON otherwise', () => {
    const q = (values: Record<string, string>) => (name: string) => values[name] ?? ''
    expect(
      decodeUriParams(params, q({ height: '5', prove: 'true', query: '"tm.event=\'Tx\'"', tx: '0x0A0b', data: '"abc"' })),
    ).toMatchObject({
      height: 5n,
      prove: true,
      query: "tm.event='Tx'",
      tx: hexToBytes('0a0b'),
      data: utf8ToBytes('abc'),
    })
    expect(decodeUriParams([int64Ptr('height')], q({ height: '"5"' }))).toEqual({ height: 5n })
    expect(decodeUriParams([bytes('tx')], q({ tx: '"name=satoshi"' }))).toEqual({ tx: utf8ToBytes('name=satoshi') })
    expect(decodeUriParams([string('path')], q({ path: '0x2f61' }))).toEqual({ path: '/a' })
    expect(() => decodeUriParams([int64Ptr('height')], q({ height: '0x01' }))).toThrow("got a hex string arg, but expected 'int64'")
    expect(() => decodeUriParams([string('query')], q({ query: 'tx.height=5' }))).toThrow(
      "invalid character 'x' in literal true (expecting 'r')",
    )
    expect(() => decodeUriParams([bool('prove')], q({ prove: '1' }))).toThrow('json: cannot unmarshal number into Go value of type bool')
    expect(() => decodeUriParams([bytes('tx')], q({ tx: '0xabc' }))).toThrow('encoding/hex: odd length hex string')
  })
})

describe('request envelope', () => {
  it('ids: integers truncated, strings kept, null/absent = notification, other types refused', () => {
    expect(parseRpcRequest({ id: 7.9, method: 'status' })).toEqual({ id: 7, method: 'status', params: undefined })
    expect(parseRpcRequest({ id: 'abc', method: 'status', params: {} }).id).toBe('abc')
    expect(parseRpcRequest({ id: null, method: 'status' }).id).toBeUndefined()
    expect(parseRpcRequest({ ID: 3, Method: 'status' })).toMatchObject({ id: 3, method: 'status' })
    expect(() => parseRpcRequest({ id: true })).toThrow('json-rpc ID (true) is of unknown type (bool)')
    expect(() => parseRpcRequest({ id: 1, method: 5 })).toThrow('json: cannot unmarshal number into Go struct field .method of type string')
    expect(() => parseRpcRequest('x')).toThrow('json: cannot unmarshal string into Go value of type types.RPCRequest')
  })
})

describe('pagination and heights', () => {
  it('per_page defaults and clamps, page range errors', () => {
    expect(validatePerPage(undefined)).toBe(30)
    expect(validatePerPage(0n)).toBe(30)
    expect(validatePerPage(1000n)).toBe(100)
    expect(validatePage(undefined, 30, 0)).toBe(1)
    expect(validatePage(1n, 30, 0)).toBe(1)
    expect(() => validatePage(2n, 30, 30)).toThrow('page should be within [1, 1] range, given 2')
    expect(() => validatePage(0n, 30, 31)).toThrow('page should be within [1, 2] range, given 0')
  })

  it('filterMinMax as blockchain applies it', () => {
    expect(filterMinMax(1, 100, 0n, 0n)).toEqual([81, 100])
    expect(filterMinMax(5, 10, 1n, 50n)).toEqual([5, 10])
    expect(() => filterMinMax(1, 10, -1n, 0n)).toThrow('heights must be non-negative')
    expect(() => filterMinMax(1, 10, 8n, 7n)).toThrow("min height 8 can't be greater than max height 7")
  })
})
