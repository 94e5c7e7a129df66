/**
 * The ABI codec (primitives/abi.ts) and cast's call notation (cli/abi-call.ts) against ethers' AbiCoder
 * and Interface: the same bytes for every kind of type, static and dynamic, nested; decoding back;
 * selectors; cast's rendering of results; clear errors.
 */
import { AbiCoder, Interface, getAddress } from 'ethers'
import { describe, expect, it } from 'vitest'
import { decodeResult, encodeCall, parseArgument, parseCallSignature } from '../../../src/cli/abi-call.js'
import { type AbiValue, decodeAbi, encodeAbi, parseAbiType } from '../../../src/primitives/abi.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'

const coder = AbiCoder.defaultAbiCoder()
const ADDR = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

/** [types, our values, ethers' values] */
const CASES: [string[], AbiValue[], unknown[]][] = [
  [['uint256'], [5n], [5n]],
  [
    ['uint8', 'int256', 'int8'],
    [255n, -1n, -128n],
    [255n, -1n, -128n],
  ],
  [
    ['address', 'bool'],
    [ADDR, true],
    [ADDR, true],
  ],
  [
    ['bytes4', 'bytes32'],
    ['0xdeadbeef', `0x${'11'.repeat(32)}`],
    ['0xdeadbeef', `0x${'11'.repeat(32)}`],
  ],
  [
    ['string', 'bytes'],
    ['héllo wörld', '0x0102'],
    ['héllo wörld', '0x0102'],
  ],
  [
    ['uint256[]', 'string[2]'],
    [
      [1n, 2n, 3n],
      ['a', 'bc'],
    ],
    [
      [1n, 2n, 3n],
      ['a', 'bc'],
    ],
  ],
  [
    ['(uint256,string)', '(address,bool)[]'],
    [[7n, 'x'], [[ADDR, false]]],
    [[7n, 'x'], [[ADDR, false]]],
  ],
  [
    ['uint256[2][]', 'bytes[]'],
    [
      [
        [1n, 2n],
        [3n, 4n],
      ],
      ['0x', '0xff'],
    ],
    [
      [
        [1n, 2n],
        [3n, 4n],
      ],
      ['0x', '0xff'],
    ],
  ],
  [[], [], []],
]

describe('ABI codec', () => {
  it.each(CASES)('encodes %j as ethers does, and decodes it back', (types, ours, theirs) => {
    const encoded = encodeAbi(types.map(parseAbiType), ours)
    expect(bytesToHex(encoded)).toBe(coder.encode(types, theirs))
    expect(decodeAbi(types.map(parseAbiType), encoded)).toEqual(ours)
  })

  it('refuses values that do not fit their type, and unknown types', () => {
    expect(() => encodeAbi([parseAbiType('uint8')], [256n])).toThrow('256 does not fit uint8')
    expect(() => encodeAbi([parseAbiType('int8')], [128n])).toThrow('does not fit int8')
    expect(() => parseAbiType('uint7')).toThrow('width must be 8..256')
    expect(() => parseAbiType('float')).toThrow('invalid ABI type "float"')
    expect(() => decodeAbi([parseAbiType('uint256')], new Uint8Array(31))).toThrow('data too short')
  })
})

describe("cast's call notation", () => {
  it('encodes a call as ethers Interface does, with the canonical selector', () => {
    const sig = parseCallSignature('transfer(address,uint)(bool)')
    const data = encodeCall(sig, [ADDR, '0x10'])
    const iface = new Interface(['function transfer(address,uint256) returns (bool)'])
    expect(bytesToHex(data)).toBe(iface.encodeFunctionData('transfer', [ADDR, 16n]))
    expect(sig.outputs).toHaveLength(1)
  })

  it('reads arrays, tuples, booleans, negative integers and plain strings from text', () => {
    const sig = parseCallSignature('f((uint8,string)[],bool,int16,string)')
    const data = encodeCall(sig, ['[(1,a),(2,b c)]', 'true', '-5', 'hello, world'])
    const iface = new Interface(['function f((uint8,string)[],bool,int16,string)'])
    expect(bytesToHex(data)).toBe(
      iface.encodeFunctionData('f', [
        [
          [1, 'a'],
          [2, 'b c'],
        ],
        true,
        -5,
        'hello, world',
      ]),
    )
  })

  it('renders results as cast prints them', () => {
    const types = ['uint256', 'address', 'string', 'bool', 'uint8[]'].map(parseAbiType)
    const data = coder.encode(['uint256', 'address', 'string', 'bool', 'uint8[]'], [10n ** 18n, ADDR, 'Test', true, [1, 2]])
    expect(decodeResult(types, hexToBytes(data)).map((v) => v.text)).toEqual([
      '1000000000000000000',
      getAddress(ADDR),
      '"Test"',
      'true',
      '[1, 2]',
    ])
  })

  it('says what is wrong with a signature or an argument', () => {
    expect(() => parseCallSignature('balanceOf')).toThrow(/invalid signature "balanceOf": want name\(type,…\)/)
    expect(() => parseCallSignature('f(uint256)(bool)(x)')).toThrow('at most an argument list and a return list')
    expect(() => encodeCall(parseCallSignature('f(uint256)'), [])).toThrow('f takes 1 argument, got 0')
    expect(() => parseArgument(parseAbiType('address'), '0x12')).toThrow('invalid address argument "0x12": want an address')
    expect(() => parseArgument(parseAbiType('bool'), 'yes')).toThrow('want true or false')
  })
})
