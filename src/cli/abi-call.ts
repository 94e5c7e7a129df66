/**
 * cast's way of naming a call: a human-readable signature, `balanceOf(address)(uint256)` (inputs, then
 * optionally the return types), and arguments as text (`0x…`, `5`, `true`, `[1,2]`, `(a,b)`, plain
 * strings). Encodes the call data (selector + ABI arguments) and renders decoded results as cast prints
 * them: integers in decimal, checksummed addresses, hex bytes, quoted strings.
 */
import { readFile } from 'node:fs/promises'
import { keccak256 } from '../crypto/hash.js'
import { toChecksumAddress } from '../primitives/address.js'
import { type AbiType, type AbiValue, decodeAbi, encodeAbi, formatAbiType, parseAbiType, splitTopLevel } from '../primitives/abi.js'
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '../primitives/hex.js'
import { resolveAddress } from './address-names.js'
import { parseData, parseValue } from './tx-values.js'
import { UsageError } from './failure.js'

/** A parsed `name(inputs)(outputs)` signature. */
export interface CallSignature {
  name: string
  inputs: AbiType[]
  /** Undefined when the signature names no return types (the result is printed as raw hex). */
  outputs: AbiType[] | undefined
  /** The 4-byte selector of `name(inputs)` in canonical types. */
  selector: Uint8Array
}

/** Parses `transfer(address,uint256)` or `balanceOf(address)(uint256)`; throws naming what is wrong. */
export function parseCallSignature(text: string): CallSignature {
  const m = /^\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*(\(.*\))\s*$/.exec(text)
  if (!m)
    throw new UsageError(`invalid signature "${text}": want name(type,…) or name(type,…)(returns,…), e.g. "balanceOf(address)(uint256)"`)
  const groups = topLevelGroups(m[2]!, text)
  if (groups.length > 2) throw new UsageError(`invalid signature "${text}": at most an argument list and a return list`)
  try {
    const inputs = splitTopLevel(groups[0]!).map(parseAbiType)
    const outputs = groups[1] === undefined ? undefined : splitTopLevel(groups[1]).map(parseAbiType)
    const canonical = `${m[1]}(${inputs.map(formatAbiType).join(',')})`
    return { name: m[1]!, inputs, outputs, selector: keccak256(utf8ToBytes(canonical)).subarray(0, 4) }
  } catch (err) {
    throw new UsageError(`invalid signature "${text}": ${(err as Error).message}`)
  }
}

/** `(a,b)(c)` → ['a,b', 'c']: the contents of each top-level parenthesised group. */
function topLevelGroups(text: string, signature: string): string[] {
  const groups: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '(') {
      if (depth === 0) start = i + 1
      depth++
    } else if (c === ')') {
      depth--
      if (depth === 0) groups.push(text.slice(start, i))
      if (depth < 0) break
    } else if (depth === 0 && c.trim() !== '') depth = -1
    if (depth < 0) break
  }
  if (depth !== 0) throw new UsageError(`invalid signature "${signature}": unbalanced or stray characters in the parentheses`)
  return groups
}

/** The call data: selector, then the arguments (as text) encoded for the signature's inputs. */
export function encodeCall(sig: CallSignature, args: readonly string[]): Uint8Array {
  if (args.length !== sig.inputs.length)
    throw new UsageError(`${sig.name} takes ${sig.inputs.length} argument${sig.inputs.length === 1 ? '' : 's'}, got ${args.length}`)
  const values = sig.inputs.map((t, i) => parseArgument(t, args[i]!))
  return concatBytes(sig.selector, encodeAbi(sig.inputs, values))
}

/** One argument from its text, as cast reads it. */
export function parseArgument(t: AbiType, text: string): AbiValue {
  const s = text.trim()
  const fail = (want: string): never => {
    throw new UsageError(`invalid ${formatAbiType(t)} argument "${text}": want ${want}`)
  }
  switch (t.kind) {
    case 'uint':
    case 'int':
      if (!/^-?(0x[0-9a-fA-F]+|\d+)$/.test(s)) fail('an integer (decimal or 0x hex)')
      return s.startsWith('-') ? -BigInt(s.slice(1)) : BigInt(s)
    case 'address':
      if (!/^0x[0-9a-fA-F]{40}$/.test(s)) fail('an address (0x and 40 hex digits)')
      return s.toLowerCase()
    case 'bool':
      if (s !== 'true' && s !== 'false') fail('true or false')
      return s === 'true'
    case 'fixedBytes':
    case 'bytes':
      if (!/^0x([0-9a-fA-F]{2})*$/.test(s)) fail('0x hex bytes')
      return s.toLowerCase()
    case 'string':
      return text
    case 'array':
      if (!s.startsWith('[') || !s.endsWith(']')) fail('[a,b,…]')
      return splitTopLevel(s.slice(1, -1)).map((x) => parseArgument(t.of, x))
    case 'tuple': {
      if (!s.startsWith('(') || !s.endsWith(')')) fail('(a,b,…)')
      const parts = splitTopLevel(s.slice(1, -1))
      if (parts.length !== t.of.length) fail(`${t.of.length} fields`)
      return t.of.map((x, i) => parseArgument(x, parts[i]!))
    }
  }
}

/** Decodes return data for `types`; one rendered value per type. */
export function decodeResult(types: readonly AbiType[], data: Uint8Array): { text: string; json: unknown }[] {
  return decodeAbi(types, data).map((v, i) => ({ text: formatValue(types[i]!, v), json: jsonValue(types[i]!, v) }))
}

/** A value as cast prints it. */
export function formatValue(t: AbiType, v: AbiValue): string {
  if (t.kind === 'array') return `[${(v as AbiValue[]).map((x) => formatValue(t.of, x)).join(', ')}]`
  if (t.kind === 'tuple') return `(${(v as AbiValue[]).map((x, i) => formatValue(t.of[i]!, x)).join(', ')})`
  if (t.kind === 'address') return toChecksumAddress(v as string)
  if (t.kind === 'string') return JSON.stringify(v)
  return String(v)
}

/** A value as JSON: integers as decimal strings (they exceed 2^53), the rest as formatValue but unquoted. */
function jsonValue(t: AbiType, v: AbiValue): unknown {
  if (t.kind === 'array') return (v as AbiValue[]).map((x) => jsonValue(t.of, x))
  if (t.kind === 'tuple') return (v as AbiValue[]).map((x, i) => jsonValue(t.of[i]!, x))
  if (t.kind === 'address') return toChecksumAddress(v as string)
  if (typeof v === 'bigint') return v.toString()
  return v
}

/** What `call`, `estimate` and `send` are asked to call: `<to> [sig] [args…]`, or `<to> --data`. */
export interface CallTarget {
  to: Uint8Array
  data: Uint8Array
  /** The signature, when one was given (its return types decode `call`'s result). */
  signature: CallSignature | undefined
}

/**
 * Reads the positional arguments and `--data` (0x hex, or `@file` holding it) of a call-like command;
 * a signature and `--data` exclude each other.
 */
export async function readCallTarget(argv: readonly string[], dataFlag: string | undefined, home: string | undefined): Promise<CallTarget> {
  const [toText, sigText, ...args] = argv
  if (toText === undefined) throw new UsageError('give the contract address first')
  const to = hexToBytes(await resolveAddress(toText, 'address', home))
  if (dataFlag !== undefined) {
    if (sigText !== undefined) throw new UsageError('give either a signature with its arguments or --data, not both')
    const text = dataFlag.startsWith('@') ? (await readFile(dataFlag.slice(1), 'utf8')).trim() : dataFlag
    return { to, data: parseData(text), signature: undefined }
  }
  if (sigText === undefined) return { to, data: new Uint8Array(), signature: undefined }
  const signature = parseCallSignature(sigText)
  return { to, data: encodeCall(signature, args), signature }
}

/** The eth_call / eth_estimateGas request of a target, with `--from` (an address or key name) and `--value` when given. */
export async function callRequestOf(
  target: CallTarget,
  flags: { from?: string | undefined; value?: string | undefined; home?: string | undefined },
): Promise<Record<string, string>> {
  return {
    to: bytesToHex(target.to),
    ...(target.data.length > 0 ? { data: bytesToHex(target.data) } : {}),
    ...(flags.from === undefined ? {} : { from: await resolveAddress(flags.from, '--from', flags.home) }),
    ...(flags.value === undefined ? {} : { value: `0x${parseValue(flags.value).toString(16)}` }),
  }
}
