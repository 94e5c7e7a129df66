/**
 * EIP-712 typed-data hashing for eth_signTypedData_v4, as geth (signer/core/apitypes, TypedDataAndHash)
 * and MetaMask's eth-sig-util v4 compute it. Where geth is looser than the EIP (signed integer range,
 * fixed array length) this follows the EIP and ethers.
 */
import { keccak256 } from '../../crypto/index.js'
import { bigintToBytes, concatBytes, hexToBytes, isHexData, utf8ToBytes } from '../../primitives/hex.js'

/** A typed-data value as eth_signTypedData_v4 receives it (JSON object or a JSON string of one). */
export interface TypedData {
  types: Record<string, { name: string; type: string }[]>
  primaryType: string
  domain: Record<string, unknown>
  message: Record<string, unknown>
}

/** Thrown for malformed typed data; `message` is what the JSON-RPC caller sees (geth's wording where geth has one). */
export class TypedDataError extends Error {
  override readonly name = 'TypedDataError'
}

type Fields = { name: string; type: string }[]

/** The EIP-712 domain fields in the order the EIP lists them, used when `types.EIP712Domain` is absent (as ethers). */
const DOMAIN_FIELDS: Fields = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
]

/** geth's typedDataReferenceTypeRegexp: a name, then any number of `[]` or `[n]` suffixes. */
const TYPE_PATTERN = /^([A-Za-z]\w*)((?:\[\d*\])*)$/
/** geth's validPrimitiveTypes: bytes1..bytes32, and (u)int8..(u)int256 in steps of 8; bare `int`/`uint` mean 256 bits. */
const ATOMIC_TYPES = new Set(['address', 'bool', 'string', 'bytes', 'int', 'uint'])
for (let n = 1; n <= 32; n++)
  ATOMIC_TYPES.add(`bytes${n}`)
    .add(`int${n * 8}`)
    .add(`uint${n * 8}`)
/** EIP-712 prefix of the signed digest: 0x19 (EIP-191) and version byte 0x01 (structured data). */
const DIGEST_PREFIX = new Uint8Array([0x19, 0x01])

/** Validates and parses the RPC argument (an object, or a string holding JSON, as geth accepts both via apitypes.TypedData unmarshal). */
export function parseTypedData(value: unknown): TypedData {
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch (err) {
      throw new TypedDataError(`invalid typed data JSON: ${(err as Error).message}`)
    }
  }
  if (!isObject(value)) throw new TypedDataError('typed data must be an object')
  const { types, primaryType, domain, message } = value
  if (!isObject(types)) throw new TypedDataError('typed data "types" must be an object')
  for (const [key, fields] of Object.entries(types)) {
    const ok = Array.isArray(fields) && fields.every((f) => isObject(f) && typeof f.name === 'string' && typeof f.type === 'string')
    if (!ok) throw new TypedDataError(`type "${key}" must be a list of {name, type} entries`)
  }
  if (typeof primaryType !== 'string') throw new TypedDataError('typed data "primaryType" must be a string')
  if (!isObject(domain)) throw new TypedDataError('typed data "domain" must be an object')
  if (!isObject(message)) throw new TypedDataError('typed data "message" must be an object')
  const data: TypedData = { types: types as TypedData['types'], primaryType, domain, message }
  validateTypes(data.types)
  return data
}

/** keccak256("\x19\x01" ‖ domainSeparator ‖ hashStruct(primaryType, message)) — the digest that gets signed. */
export function hashTypedData(data: TypedData): Uint8Array {
  const domainSeparator = hashDomain(data)
  if (!Object.hasOwn(data.types, data.primaryType)) throw new TypedDataError(`primary type "${data.primaryType}" is undefined`)
  const messageHash = new Encoder(data.types).hashStruct(data.primaryType, data.message, '')
  return keccak256(concatBytes(DIGEST_PREFIX, domainSeparator, messageHash))
}

/** hashStruct of the EIP712Domain. */
export function hashDomain(data: TypedData): Uint8Array {
  validateTypes(data.types)
  // geth rejects a domain with none of the standard fields: a signature without a domain can be replayed anywhere
  if (!DOMAIN_FIELDS.some((f) => data.domain[f.name] != null)) throw new TypedDataError('domain is undefined')
  let types = data.types
  if (!Object.hasOwn(types, 'EIP712Domain')) {
    for (const key of Object.keys(data.domain)) {
      if (!DOMAIN_FIELDS.some((f) => f.name === key)) throw new TypedDataError(`invalid typed-data domain key "${key}"`)
    }
    types = { ...types, EIP712Domain: DOMAIN_FIELDS.filter((f) => data.domain[f.name] != null) }
  }
  return new Encoder(types).hashStruct('EIP712Domain', data.domain, 'domain.')
}

/** geth's Types.validate, plus ethers' checks for duplicate fields and struct names that shadow atomic types. */
function validateTypes(types: TypedData['types']): void {
  for (const [key, fields] of Object.entries(types)) {
    if (key === '') throw new TypedDataError('empty type key')
    if (ATOMIC_TYPES.has(key)) throw new TypedDataError(`type "${key}" is a primitive type`)
    const seen = new Set<string>()
    fields.forEach((field, i) => {
      if (field.type === '') throw new TypedDataError(`type "${key}":${i}: empty Type`)
      if (field.name === '') throw new TypedDataError(`type "${key}":${i}: empty Name`)
      if (seen.has(field.name)) throw new TypedDataError(`type "${key}": duplicate field "${field.name}"`)
      seen.add(field.name)
      if (field.type === key) throw new TypedDataError(`type "${key}" cannot reference itself`)
      const base = TYPE_PATTERN.exec(field.type)?.[1]
      if (base === undefined) throw new TypedDataError(`type "${key}" field "${field.name}": unknown reference type "${field.type}"`)
      if (!ATOMIC_TYPES.has(base) && !Object.hasOwn(types, base))
        throw new TypedDataError(`type "${key}" field "${field.name}": reference type "${field.type}" is undefined`)
    })
  }
}

/** Encodes values against one set of types, caching each struct's typeHash. */
class Encoder {
  private readonly types: Map<string, Fields>
  private readonly typeHashes = new Map<string, Uint8Array>()
  constructor(types: TypedData['types']) {
    this.types = new Map(Object.entries(types)) // a Map, so a type named "constructor" is not Object's
  }

  /** hashStruct(s) = keccak256(typeHash ‖ encodeData(s)); `path` prefixes field names in errors. */
  hashStruct(type: string, value: Record<string, unknown>, path: string): Uint8Array {
    const fields = this.types.get(type)!
    for (const key of Object.keys(value)) {
      if (value[key] != null && !fields.some((f) => f.name === key))
        throw new TypedDataError(`there is extra data provided in the message: field "${path}${key}" is not in type ${type}`)
    }
    const parts = [this.typeHash(type)]
    for (const field of fields) {
      const fieldValue = Object.hasOwn(value, field.name) ? value[field.name] : undefined
      if (fieldValue == null) throw new TypedDataError(`missing value for field "${path}${field.name}" of type ${field.type}`)
      parts.push(this.encodeValue(field.type, fieldValue, path + field.name))
    }
    return keccak256(concatBytes(...parts))
  }

  /** encodeType: the primary type, then the struct types it references sorted by name. */
  private typeHash(type: string): Uint8Array {
    let hash = this.typeHashes.get(type)
    if (!hash) {
      const deps = new Set<string>()
      this.collectDependencies(type, deps)
      deps.delete(type)
      const encoded = [type, ...[...deps].sort()]
        .map(
          (t) =>
            `${t}(${this.types
              .get(t)!
              .map((f) => `${f.type} ${f.name}`)
              .join(',')})`,
        )
        .join('')
      hash = keccak256(utf8ToBytes(encoded))
      this.typeHashes.set(type, hash)
    }
    return hash
  }

  private collectDependencies(type: string, found: Set<string>): void {
    const fields = this.types.get(type)
    if (found.has(type) || !fields) return
    found.add(type)
    for (const field of fields) this.collectDependencies(field.type.split('[')[0]!, found)
  }

  /** The 32-byte enc(value): arrays and structs hash, dynamic types hash their contents, atomics pad. */
  private encodeValue(type: string, value: unknown, path: string): Uint8Array {
    const fail = (reason: string) => new TypedDataError(`invalid value for field "${path}" of type ${type}: ${reason}`)
    const array = /^(.*)\[(\d*)\]$/.exec(type)
    if (array) {
      const inner = array[1]!
      const length = array[2]!
      if (!Array.isArray(value)) throw fail('not an array')
      if (length !== '' && value.length !== Number(length)) throw fail(`want ${length} elements, got ${value.length}`)
      return keccak256(concatBytes(...value.map((item, i) => this.encodeValue(inner, item, `${path}[${i}]`))))
    }
    if (this.types.has(type)) {
      if (!isObject(value)) throw fail('not an object')
      return this.hashStruct(type, value, path + '.')
    }
    return encodeAtomic(type, value, fail)
  }
}

function encodeAtomic(type: string, value: unknown, fail: (reason: string) => TypedDataError): Uint8Array {
  if (!ATOMIC_TYPES.has(type)) throw fail('unrecognized type')
  if (type === 'string') {
    if (typeof value !== 'string') throw fail(`${show(value)} is not a string`)
    return keccak256(utf8ToBytes(value))
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw fail(`${show(value)} is not a boolean`)
    return bigintToBytes(value ? 1n : 0n, 32)
  }
  if (type === 'address') {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value))
      throw fail(`${show(value)} is not a 0x-prefixed 20-byte hex address`)
    return bigintToBytes(BigInt(value), 32)
  }
  if (type.startsWith('bytes')) {
    if (!isHexData(value)) throw fail(`${show(value)} is not 0x-prefixed hex bytes`)
    const bytes = hexToBytes(value)
    if (type === 'bytes') return keccak256(bytes)
    const size = Number(type.slice('bytes'.length))
    if (bytes.length !== size) throw fail(`want ${size} bytes, got ${bytes.length}`)
    return concatBytes(bytes, new Uint8Array(32 - size)) // bytesN are left-aligned
  }
  const bits = Number(type.replace(/^u?int/, '') || 256)
  const n = parseInteger(value, fail)
  const signed = type.startsWith('int')
  const [min, max] = signed ? [-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n] : [0n, (1n << BigInt(bits)) - 1n]
  if (n < min || n > max) throw fail(`${n} out of range`)
  return bigintToBytes(n < 0n ? (1n << 256n) + n : n, 32) // two's complement, as abi.encode
}

/** A JSON number (exact only up to 2^53, as ethers insists), a decimal string or a 0x hex string. */
function parseInteger(value: unknown, fail: (reason: string) => TypedDataError): bigint {
  if (typeof value === 'bigint') return value
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw fail(`${value} is not a safe integer; pass it as a string`)
    return BigInt(value)
  }
  if (typeof value === 'string' && /^(?:-?\d+|0[xX][0-9a-fA-F]+)$/.test(value)) return BigInt(value)
  throw fail(`${show(value)} is not an integer`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function show(value: unknown): string {
  const text = typeof value === 'bigint' ? String(value) : (JSON.stringify(value) ?? String(value))
  return text.length > 70 ? text.slice(0, 67) + '...' : text
}
