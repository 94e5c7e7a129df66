/**
 * Contract `console.log` as Hardhat's `console.sol` sends it: a call to {@link CONSOLE_ADDRESS}, which
 * holds no code (the call succeeds and does nothing), whose data is the ABI encoding of a `log(...)`
 * overload. The selector table is generated from the overloads' signatures: `log()`, `log` with one to
 * four arguments of uint256, string, bool and address in every combination, `log(int256)`, and the
 * `logInt`/`logUint`/`logString`/`logBool`/`logAddress`/`logBytes`/`logBytes1`…`logBytes32` forms. Older
 * `console.sol` versions hashed `uint` and `int` for `uint256` and `int256`: both spellings are known.
 */
import { format } from 'node:util'
import { keccak256 } from '../../crypto/index.js'
import { toChecksumAddress } from '../../primitives/address.js'
import { bytesToBigint, bytesToHex, bytesToUtf8, hexToBytes, utf8ToBytes } from '../../primitives/hex.js'

/** The address `console.sol` calls: the ASCII of "console.log", left-padded to 20 bytes. */
export const CONSOLE_ADDRESS = hexToBytes('0x000000000000000000636f6e736f6c652e6c6f67')

/** The argument types `console.sol` passes. */
type ConsoleType = 'uint' | 'int' | 'string' | 'bool' | 'address' | 'bytes' | `bytes${number}`

/** ABI word size in bytes. */
const WORD = 32
/** Bytes of a function selector. */
const SELECTOR_BYTES = 4
/** The types of `log`'s one-to-four-argument overloads. */
const LOG_ARG_TYPES = ['uint256', 'string', 'bool', 'address'] as const
/** Most arguments of a `log` overload. */
const MAX_LOG_ARGS = 4
/** Largest fixed-size byte array (bytes32). */
const MAX_FIXED_BYTES = 32

/** Every `log(...)` signature with one to four arguments of {@link LOG_ARG_TYPES}. */
function logCombinations(): string[][] {
  let lists: string[][] = [[]]
  const out: string[][] = []
  for (let n = 1; n <= MAX_LOG_ARGS; n++) {
    lists = lists.flatMap((list) => LOG_ARG_TYPES.map((t) => [...list, t]))
    out.push(...lists)
  }
  return out
}

/** Every known signature as [function name, argument types (Solidity spelling)]. */
function consoleSignatures(): [string, string[]][] {
  const sigs: [string, string[]][] = [
    ['log', []],
    ['log', ['int256']],
    ...logCombinations().map((args): [string, string[]] => ['log', args]),
  ]
  const single: [string, string][] = [
    ['logInt', 'int256'],
    ['logUint', 'uint256'],
    ['logString', 'string'],
    ['logBool', 'bool'],
    ['logAddress', 'address'],
    ['logBytes', 'bytes'],
  ]
  for (let n = 1; n <= MAX_FIXED_BYTES; n++) single.push([`logBytes${n}`, `bytes${n}`])
  sigs.push(...single.map(([name, type]): [string, string[]] => [name, [type]]))
  return sigs
}

/** The decoder's type of a Solidity type name. */
function consoleType(solidity: string): ConsoleType {
  if (solidity === 'uint256' || solidity === 'uint') return 'uint'
  if (solidity === 'int256' || solidity === 'int') return 'int'
  return solidity as ConsoleType
}

let selectors: Map<number, ConsoleType[]> | undefined

/** Selector (as a 32-bit number) → argument types; built once, at the first console call. */
function selectorTable(): Map<number, ConsoleType[]> {
  if (selectors) return selectors
  selectors = new Map()
  for (const [name, args] of consoleSignatures()) {
    const spellings = [args, args.map((t) => (t === 'uint256' ? 'uint' : t === 'int256' ? 'int' : t))]
    for (const spelling of spellings) {
      const selector = keccak256(utf8ToBytes(`${name}(${spelling.join(',')})`))
      selectors.set(readSelector(selector), args.map(consoleType))
    }
  }
  return selectors
}

function readSelector(bytes: Uint8Array): number {
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0
}

/** The word at byte `offset` of `args`, zero-padded past the end (as the EVM reads calldata). */
function wordAt(args: Uint8Array, offset: number): Uint8Array {
  const word = new Uint8Array(WORD)
  word.set(args.subarray(offset, offset + WORD))
  return word
}

/** A dynamic value (string, bytes): its offset in the head, then length and bytes; undefined when out of range. */
function dynamicAt(args: Uint8Array, headOffset: number): Uint8Array | undefined {
  const start = bytesToBigint(wordAt(args, headOffset))
  if (start + BigInt(WORD) > BigInt(args.length)) return undefined
  const length = bytesToBigint(wordAt(args, Number(start)))
  const end = start + BigInt(WORD) + length
  if (end > BigInt(args.length)) return undefined
  return args.subarray(Number(start) + WORD, Number(end))
}

/** One argument as `util.format` should show it (integers as decimal text: `%d` of a bigint adds an `n`). */
function decodeArg(type: ConsoleType, args: Uint8Array, headOffset: number): string | boolean | undefined {
  const word = wordAt(args, headOffset)
  switch (type) {
    case 'uint':
      return bytesToBigint(word).toString()
    case 'int':
      return BigInt.asIntN(256, bytesToBigint(word)).toString()
    case 'bool':
      return bytesToBigint(word) !== 0n
    case 'address':
      return toChecksumAddress(word.subarray(WORD - 20))
    case 'string': {
      const value = dynamicAt(args, headOffset)
      return value && bytesToUtf8(value)
    }
    case 'bytes': {
      const value = dynamicAt(args, headOffset)
      return value && bytesToHex(value)
    }
    default:
      return bytesToHex(word.subarray(0, Number(type.slice('bytes'.length))))
  }
}

/**
 * The text a `console.log` call prints, formatted as Hardhat formats it (`util.format` of the
 * arguments, so a first string argument may hold `%s`, `%d`...); undefined for data that is not a
 * known overload or whose arguments do not decode.
 */
export function decodeConsoleCall(data: Uint8Array): string | undefined {
  if (data.length < SELECTOR_BYTES) return undefined
  const types = selectorTable().get(readSelector(data))
  if (types === undefined) return undefined
  const args = data.subarray(SELECTOR_BYTES)
  const values: (string | boolean)[] = []
  for (const [i, type] of types.entries()) {
    const value = decodeArg(type, args, i * WORD)
    if (value === undefined) return undefined
    values.push(value)
  }
  return format(...values)
}
