import { Signature, TypedDataEncoder, Wallet, verifyTypedData } from 'ethers'
import { describe, expect, it } from 'vitest'
import { TypedDataError, hashDomain, hashTypedData, parseTypedData, type TypedData } from '../../../../src/api/eth/typed-data.js'
import { signHash } from '../../../../src/crypto/index.js'
import { bytesToHex, hexToBytes } from '../../../../src/primitives/hex.js'

type Types = TypedData['types']

/** The EIP-712 example (eips.ethereum.org/EIPS/eip-712, Example.js). */
const MAIL: TypedData = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ],
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
}

function withoutDomainType(types: Types): Types {
  const { EIP712Domain: _, ...rest } = types
  return rest
}

/** ethers v6's digest for the same data (ethers wants the types without EIP712Domain). */
function ethersHash(data: TypedData): string {
  return TypedDataEncoder.hash(data.domain, withoutDomainType(data.types), data.message)
}

function typed(
  primaryType: string,
  types: Types,
  message: Record<string, unknown>,
  domain: Record<string, unknown> = { name: 'Test', version: '2', chainId: 31337 },
): TypedData {
  return { types, primaryType, domain, message }
}

/** Deterministic pseudo-random source (an LCG), so a failure reproduces. */
function createRandom(seed: number) {
  let s = seed
  const byte = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    return (s >>> 16) & 0xff
  }
  const bytes = (n: number) => bytesToHex(Uint8Array.from({ length: n }, byte))
  return { byte, bytes, int: (max: number) => byte() % max }
}

describe('hashTypedData', () => {
  it('gives the EIP-712 Mail example digest and domain separator', () => {
    expect(bytesToHex(hashTypedData(MAIL))).toBe('0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2')
    expect(bytesToHex(hashDomain(MAIL))).toBe('0xf2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f')
    expect(bytesToHex(hashTypedData(MAIL))).toBe(ethersHash(MAIL))
  })

  it('derives EIP712Domain from the domain fields when types lack it', () => {
    const data = { ...MAIL, types: withoutDomainType(MAIL.types) }
    expect(bytesToHex(hashTypedData(data))).toBe('0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2')
  })

  it('matches ethers for nested structs and arrays of structs', () => {
    const types: Types = {
      Group: [
        { name: 'title', type: 'string' },
        { name: 'owner', type: 'Person' },
        { name: 'members', type: 'Person[]' },
        { name: 'pair', type: 'Person[2]' },
        { name: 'badge', type: 'Badge' }, // referenced last, sorted first in encodeType
      ],
      Badge: [{ name: 'id', type: 'uint16' }],
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallets', type: 'address[]' },
        { name: 'home', type: 'Place' },
      ],
      Place: [
        { name: 'lat', type: 'int32' },
        { name: 'lon', type: 'int32' },
      ],
    }
    const person = (name: string, n: number) => ({
      name,
      wallets: Array.from({ length: n }, (_, i) => `0x${String(i + 1).repeat(40)}`),
      home: { lat: -n, lon: String(n * 1000) },
    })
    for (const count of [0, 1, 3]) {
      const data = typed('Group', types, {
        title: 'club',
        owner: person('Al', 2),
        members: Array.from({ length: count }, (_, i) => person(`m${i}`, i)),
        pair: [person('x', 0), person('y', 1)],
        badge: { id: count },
      })
      expect(bytesToHex(hashTypedData(data)), `${count} members`).toBe(ethersHash(data))
    }
  })

  it('matches ethers for fixed-size and nested arrays', () => {
    const types: Types = {
      Arrays: [
        { name: 'small', type: 'uint8[3]' },
        { name: 'hashes', type: 'bytes32[2]' },
        { name: 'matrix', type: 'uint256[2][]' },
        { name: 'words', type: 'string[][]' },
        { name: 'blobs', type: 'bytes[]' },
        { name: 'flags', type: 'bool[0]' },
      ],
    }
    const data = typed('Arrays', types, {
      small: [1, '2', '0x03'],
      hashes: [`0x${'ab'.repeat(32)}`, `0x${'00'.repeat(32)}`],
      matrix: [
        [1, 2],
        ['3', '0x4'],
        [0, '115792089237316195423570985008687907853269984665640564039457584007913129639935'],
      ],
      words: [[], ['a'], ['b', 'ç', '']],
      blobs: ['0x', '0x00', '0xdeadbeef'],
      flags: [],
    })
    expect(bytesToHex(hashTypedData(data))).toBe(ethersHash(data))
  })

  it('matches ethers for every atomic type over pseudo-random values', () => {
    const fields = [
      { name: 'a', type: 'address' },
      { name: 'b', type: 'bool' },
      { name: 'b1', type: 'bytes1' },
      { name: 'b20', type: 'bytes20' },
      { name: 'b32', type: 'bytes32' },
      { name: 'dyn', type: 'bytes' },
      { name: 's', type: 'string' },
      { name: 'u8', type: 'uint8' },
      { name: 'u64', type: 'uint64' },
      { name: 'u256', type: 'uint256' },
      { name: 'i8', type: 'int8' },
      { name: 'i128', type: 'int128' },
      { name: 'i256', type: 'int256' },
    ]
    const rnd = createRandom(42)
    const signedValue = (bits: number) => {
      const n = BigInt(rnd.bytes(bits / 8)) - (1n << BigInt(bits - 1))
      return [n.toString(), Number(n % 1000n), n < 0n ? n.toString() : `0x${n.toString(16)}`][rnd.int(3)]
    }
    for (let i = 0; i < 40; i++) {
      const message = {
        a: rnd.bytes(20),
        b: rnd.int(2) === 1,
        b1: rnd.bytes(1),
        b20: rnd.bytes(20),
        b32: rnd.bytes(32),
        dyn: rnd.bytes(rnd.int(70)),
        s: String.fromCodePoint(...Array.from({ length: rnd.int(10) }, () => 0x20 + rnd.byte() * 37)),
        u8: rnd.byte(),
        u64: BigInt(rnd.bytes(8)).toString(),
        u256: rnd.bytes(32),
        i8: signedValue(8),
        i128: signedValue(128),
        i256: signedValue(256),
      }
      const data = typed('Atoms', { Atoms: fields }, message)
      expect(bytesToHex(hashTypedData(data)), JSON.stringify(message)).toBe(ethersHash(data))
    }
  })

  it('matches ethers at the integer range limits', () => {
    const types: Types = {
      Limits: [
        { name: 'i8min', type: 'int8' },
        { name: 'i8max', type: 'int8' },
        { name: 'i256min', type: 'int256' },
        { name: 'minus1', type: 'int64' },
        { name: 'u8max', type: 'uint8' },
      ],
    }
    const data = typed('Limits', types, { i8min: -128, i8max: '127', i256min: (-(1n << 255n)).toString(), minus1: -1, u8max: '0xff' })
    expect(bytesToHex(hashTypedData(data))).toBe(ethersHash(data))
  })

  it('matches ethers for domains with salt, without version, or with a single field', () => {
    const types: Types = { Ping: [{ name: 'n', type: 'uint256' }] }
    const domains = [
      {
        name: 'Salted',
        version: '1',
        chainId: '0x1',
        verifyingContract: '0x1111111111111111111111111111111111111111',
        salt: `0x${'5a'.repeat(32)}`,
      },
      { name: 'NoVersion', chainId: 10, verifyingContract: '0x2222222222222222222222222222222222222222' },
      { chainId: '137' },
      { salt: `0x${'01'.repeat(32)}` },
      { name: 'Unicode ✓', version: '' },
    ]
    for (const domain of domains) {
      const data = typed('Ping', types, { n: 7 }, domain)
      expect(bytesToHex(hashTypedData(data)), JSON.stringify(domain)).toBe(ethersHash(data))
      expect(bytesToHex(hashDomain(data))).toBe(TypedDataEncoder.hashDomain(domain))
    }
  })

  it('uses the EIP712Domain type as given, in its order', () => {
    const domainType = [
      { name: 'chainId', type: 'uint256' },
      { name: 'name', type: 'string' },
    ]
    const data = typed(
      'Ping',
      { EIP712Domain: domainType, Ping: [{ name: 'n', type: 'uint256' }] },
      { n: 1 },
      { name: 'Reordered', chainId: 5 },
    )
    expect(bytesToHex(hashDomain(data))).toBe(TypedDataEncoder.hashStruct('EIP712Domain', { EIP712Domain: domainType }, data.domain))
  })

  it('produces a digest whose signature ethers verifyTypedData accepts', () => {
    const key = hexToBytes('0x4c0883a69102937d6231471b5decb208c1d6eb3fd1a77e8b1b7d6c2a7a0ed1b0')
    const { r, s, recovery } = signHash(hashTypedData(MAIL), key)
    const signature = Signature.from({ r: bytesToHex(r), s: bytesToHex(s), v: 27 + recovery }).serialized
    expect(verifyTypedData(MAIL.domain, withoutDomainType(MAIL.types), MAIL.message, signature)).toBe(new Wallet(bytesToHex(key)).address)
  })
})

describe('parseTypedData', () => {
  it('accepts an object or a JSON string of one', () => {
    expect(bytesToHex(hashTypedData(parseTypedData(JSON.stringify(MAIL))))).toBe(
      '0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2',
    )
    expect(parseTypedData(MAIL)).toEqual(MAIL)
  })

  it.each([
    ['{not json', /^invalid typed data JSON: /],
    [42, 'typed data must be an object'],
    [{ ...MAIL, types: [] }, 'typed data "types" must be an object'],
    [{ ...MAIL, types: { Mail: [{ name: 'x' }] } }, 'type "Mail" must be a list of {name, type} entries'],
    [{ ...MAIL, primaryType: undefined }, 'typed data "primaryType" must be a string'],
    [{ ...MAIL, domain: 'x' }, 'typed data "domain" must be an object'],
    [{ ...MAIL, message: undefined }, 'typed data "message" must be an object'],
    [
      { ...MAIL, types: { ...MAIL.types, Mail: [{ name: 'x', type: 'Thing' }] } },
      'type "Mail" field "x": reference type "Thing" is undefined',
    ],
  ])('rejects %j', (value, message) => {
    expect(() => parseTypedData(value)).toThrow(TypedDataError)
    expect(() => parseTypedData(value)).toThrow(message)
  })
})

describe('typed data errors', () => {
  const one = (type: string, value: unknown) => typed('T', { T: [{ name: 'amount', type }] }, { amount: value })
  const cases: [string, TypedData, string][] = [
    ['uint8 overflow', one('uint8', 300), 'invalid value for field "amount" of type uint8: 300 out of range'],
    ['negative uint', one('uint256', '-1'), 'invalid value for field "amount" of type uint256: -1 out of range'],
    ['int8 overflow', one('int8', '0x80'), 'invalid value for field "amount" of type int8: 128 out of range'],
    ['fraction', one('uint64', 1.5), 'invalid value for field "amount" of type uint64: 1.5 is not a safe integer; pass it as a string'],
    [
      'unsafe number',
      one('uint64', 2 ** 60),
      `invalid value for field "amount" of type uint64: ${2 ** 60} is not a safe integer; pass it as a string`,
    ],
    ['non-numeric string', one('uint256', '12abc'), 'invalid value for field "amount" of type uint256: "12abc" is not an integer'],
    ['bool as string', one('bool', 'true'), 'invalid value for field "amount" of type bool: "true" is not a boolean'],
    ['short bytes32', one('bytes32', '0x1234'), 'invalid value for field "amount" of type bytes32: want 32 bytes, got 2'],
    ['odd hex bytes', one('bytes', '0x123'), 'invalid value for field "amount" of type bytes: "0x123" is not 0x-prefixed hex bytes'],
    [
      'bad address',
      one('address', '0x12'),
      'invalid value for field "amount" of type address: "0x12" is not a 0x-prefixed 20-byte hex address',
    ],
    ['string as number', one('string', 5), 'invalid value for field "amount" of type string: 5 is not a string'],
    ['fixed array length', one('uint8[2]', [1, 2, 3]), 'invalid value for field "amount" of type uint8[2]: want 2 elements, got 3'],
    ['not an array', one('uint8[]', 1), 'invalid value for field "amount" of type uint8[]: not an array'],
    ['array element', one('uint8[][]', [[1], [2, 256]]), 'invalid value for field "amount[1][1]" of type uint8: 256 out of range'],
    ['unknown type', one('uint7', 1), 'type "T" field "amount": reference type "uint7" is undefined'],
    ['malformed type', one('uint8[x]', 1), 'type "T" field "amount": unknown reference type "uint8[x]"'],
    ['missing field', { ...MAIL, message: { from: MAIL.message.from, contents: 'hi' } }, 'missing value for field "to" of type Person'],
    [
      'missing nested field',
      { ...MAIL, message: { ...MAIL.message, from: { name: 'Cow' } } },
      'missing value for field "from.wallet" of type address',
    ],
    [
      'struct not an object',
      { ...MAIL, message: { ...MAIL.message, to: 'Bob' } },
      'invalid value for field "to" of type Person: not an object',
    ],
    [
      'extra field',
      { ...MAIL, message: { ...MAIL.message, cc: 'x' } },
      'there is extra data provided in the message: field "cc" is not in type Mail',
    ],
    [
      'extra domain field',
      { ...MAIL, domain: { ...MAIL.domain, salt: `0x${'00'.repeat(32)}` } },
      'there is extra data provided in the message: field "domain.salt" is not in type EIP712Domain',
    ],
    [
      'bad domain value',
      { ...MAIL, domain: { ...MAIL.domain, chainId: 'one' } },
      'invalid value for field "domain.chainId" of type uint256: "one" is not an integer',
    ],
    [
      'unknown domain key',
      { ...MAIL, types: withoutDomainType(MAIL.types), domain: { ...MAIL.domain, foo: 1 } },
      'invalid typed-data domain key "foo"',
    ],
    ['empty domain', { ...MAIL, domain: {} }, 'domain is undefined'],
    ['undefined primary type', { ...MAIL, primaryType: 'Letter' }, 'primary type "Letter" is undefined'],
    ['self reference', typed('Node', { Node: [{ name: 'next', type: 'Node' }] }, {}), 'type "Node" cannot reference itself'],
    ['empty field name', typed('T', { T: [{ name: '', type: 'uint8' }] }, {}), 'type "T":0: empty Name'],
    [
      'duplicate field',
      typed(
        'T',
        {
          T: [
            { name: 'a', type: 'uint8' },
            { name: 'a', type: 'bool' },
          ],
        },
        {},
      ),
      'type "T": duplicate field "a"',
    ],
    ['Object.prototype name as type', one('toString', 1), 'type "T" field "amount": reference type "toString" is undefined'],
    [
      'Object.prototype name as field',
      typed('T', { T: [{ name: 'constructor', type: 'string' }] }, {}),
      'missing value for field "constructor" of type string',
    ],
    [
      'struct named like a primitive',
      typed('T', { T: [{ name: 'a', type: 'uint8' }], address: [{ name: 'a', type: 'uint8' }] }, {}),
      'type "address" is a primitive type',
    ],
  ]

  it.each(cases)('%s', (_, data, message) => {
    let error: unknown
    try {
      hashTypedData(data)
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(TypedDataError)
    expect((error as Error).message).toBe(message)
  })

  it('hashes recursive types whose data terminates, as geth does', () => {
    const types: Types = {
      Tree: [
        { name: 'label', type: 'string' },
        { name: 'children', type: 'Tree[]' },
      ],
    }
    const data = typed('Tree', types, { label: 'root', children: [{ label: 'leaf', children: [] }] })
    expect(hashTypedData(data)).toHaveLength(32)
  })
})
