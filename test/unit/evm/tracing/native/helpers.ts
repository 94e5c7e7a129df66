/**
 * Drives a tracer with hand-written hook sequences, as the trace executor would: a fake state over a
 * Map that the test mutates as the EVM would mid-transaction, and a driver that tracks the depth.
 */
import { expect } from 'vitest'
import type {
  Address,
  FrameEnter,
  FrameExit,
  FrameType,
  OpcodeStep,
  TraceStateReader,
  Tracer,
  TxEndInfo,
  TxStartInfo,
} from '../../../../../src/evm/tracing/hooks.js'
import { bigintToBytes, bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '../../../../../src/primitives/hex.js'

/** A 20-byte address whose every byte is `byte` (0xaa → 0xaaaa…aa). */
export const addr = (byte: number): Address => new Uint8Array(20).fill(byte)
/** The address 0x00…0n (precompiles). */
export const lowAddr = (n: number): Address => bigintToBytes(BigInt(n), 20)
export const hex = bytesToHex
export const word = (n: bigint): Uint8Array => bigintToBytes(n, 32)
export const data = (s: string): Uint8Array => hexToBytes(s)

/** ABI encoding of Solidity's `Error(string)` revert data. */
export function errorData(reason: string): Uint8Array {
  const text = utf8ToBytes(reason)
  const padded = new Uint8Array(Math.ceil(text.length / 32) * 32)
  padded.set(text)
  return concatBytes(hexToBytes('0x08c379a0'), word(32n), word(BigInt(text.length)), padded)
}

/** ABI encoding of Solidity's `Panic(uint256)` revert data. */
export const panicData = (code: bigint): Uint8Array => concatBytes(hexToBytes('0x4e487b71'), word(code))

interface FakeAccount {
  balance: bigint
  nonce: bigint
  code: Uint8Array
  storage: Map<string, Uint8Array>
}

/** World state over a Map; `set`/`setStorage` change it the way execution would. */
export class FakeState implements TraceStateReader {
  readonly accounts = new Map<string, FakeAccount>()

  private account(address: Address): FakeAccount {
    let a = this.accounts.get(hex(address))
    if (!a) {
      a = { balance: 0n, nonce: 0n, code: new Uint8Array(), storage: new Map() }
      this.accounts.set(hex(address), a)
    }
    return a
  }

  set(address: Address, fields: Partial<Omit<FakeAccount, 'storage'>> & { storage?: Record<string, bigint> }): this {
    const a = this.account(address)
    if (fields.balance !== undefined) a.balance = fields.balance
    if (fields.nonce !== undefined) a.nonce = fields.nonce
    if (fields.code !== undefined) a.code = fields.code
    for (const [slot, value] of Object.entries(fields.storage ?? {})) a.storage.set(hex(word(BigInt(slot))), word(value))
    return this
  }

  async getBalance(address: Address): Promise<bigint> {
    return this.accounts.get(hex(address))?.balance ?? 0n
  }
  async getNonce(address: Address): Promise<bigint> {
    return this.accounts.get(hex(address))?.nonce ?? 0n
  }
  async getCode(address: Address): Promise<Uint8Array> {
    return this.accounts.get(hex(address))?.code ?? new Uint8Array()
  }
  async getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    return this.accounts.get(hex(address))?.storage.get(hex(slot)) ?? new Uint8Array(32)
  }
  async exists(address: Address): Promise<boolean> {
    const a = this.accounts.get(hex(address))
    return a !== undefined && (a.balance > 0n || a.nonce > 0n || a.code.length > 0)
  }
}

/** geth's opcode bytes for the opcodes the tests step through. */
const OPCODES: Record<string, number> = {
  SLOAD: 0x54,
  SSTORE: 0x55,
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODEHASH: 0x3f,
  SELFDESTRUCT: 0xff,
  CALL: 0xf1,
  DELEGATECALL: 0xf4,
  STATICCALL: 0xfa,
  CREATE: 0xf0,
  CREATE2: 0xf5,
  ADD: 0x01,
  LOG1: 0xa1,
}

/** The transaction defaults: a CALL from 0xaa… to 0xcc… with 100,000 gas. */
export function txInfo(over: Partial<TxStartInfo> = {}): TxStartInfo {
  return {
    blockNumber: 7n,
    blockHash: new Uint8Array(32).fill(0xbb),
    timestamp: 1_700_000_000n,
    coinbase: addr(0xfe),
    baseFee: 1n,
    txIndex: 2,
    txHash: new Uint8Array(32).fill(0x99),
    from: addr(0xaa),
    to: addr(0xcc),
    input: new Uint8Array(),
    value: 0n,
    gasLimit: 100_000n,
    gasPrice: 10n,
    intrinsicGas: 21_000n,
    ...over,
  }
}

/** Plays hooks into a tracer as the executor does (awaiting each), keeping track of the depth. */
export class HookDriver {
  depth = -1
  constructor(
    readonly tracer: Tracer,
    readonly state: FakeState = new FakeState(),
  ) {}

  async txStart(tx: TxStartInfo): Promise<void> {
    await this.tracer.onTxStart?.(tx, this.state)
  }

  async enter(
    type: FrameType,
    from: Address,
    to: Address,
    over: Partial<Omit<FrameEnter, 'type' | 'from' | 'to' | 'depth'>> = {},
  ): Promise<void> {
    this.depth++
    await this.tracer.onEnter?.({ type, from, to, depth: this.depth, input: new Uint8Array(), gas: 0n, value: 0n, ...over }, this.state)
  }

  async exit(over: Partial<Omit<FrameExit, 'depth'>> = {}): Promise<void> {
    const error = over.error
    await this.tracer.onExit?.(
      { depth: this.depth, output: new Uint8Array(), gasUsed: 0n, error, reverted: error === 'execution reverted', ...over },
      this.state,
    )
    this.depth--
  }

  log(address: Address, topics: Uint8Array[], payload: Uint8Array = new Uint8Array()): void {
    this.tracer.onLog?.({ depth: this.depth, address, topics, data: payload })
  }

  /** One opcode at the current depth, executing in `contract`; `stack` is bottom to top. */
  async op(opName: string, contract: Address, stack: bigint[] = [], memory: Uint8Array = new Uint8Array()): Promise<void> {
    const step: OpcodeStep = {
      pc: 0,
      op: OPCODES[opName]!,
      opName,
      gas: 50_000n,
      cost: 3n,
      depth: this.depth,
      stack,
      memory,
      returnData: new Uint8Array(),
      refund: 0n,
      contract,
      codeAddress: contract,
      caller: addr(0xaa),
      callValue: 0n,
      input: new Uint8Array(),
    }
    await this.tracer.onOpcode?.(step, this.state)
  }

  async txEnd(over: Partial<TxEndInfo> = {}): Promise<void> {
    await this.tracer.onTxEnd?.({ gasUsed: 0n, output: new Uint8Array(), error: undefined, reverted: false, ...over }, this.state)
  }
}

/** Deep equality and geth's field order (JSON text compared). */
export function expectJson(actual: unknown, expected: unknown): void {
  expect(actual).toEqual(expected)
  expect(JSON.stringify(actual, null, 2)).toBe(JSON.stringify(expected, null, 2))
}
