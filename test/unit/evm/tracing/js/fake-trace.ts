/**
 * Hand-written hook sequences for driving a tracer without an EVM: a fake TraceStateReader over a
 * Map, and a runner that plays a transaction (frames with opcode steps) through the hooks in the
 * executor's order (onTxStart → onEnter → onOpcode… → onExit → onTxEnd).
 */
import type { Address, FrameType, OpcodeStep, TraceStateReader, Tracer, TxStartInfo } from '../../../../../src/evm/tracing/hooks.js'

export const addr = (n: number): Address => {
  const a = new Uint8Array(20)
  a[19] = n
  return a
}

export const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex')

export interface FakeAccount {
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  storage?: Map<string, Uint8Array>
}

/** A TraceStateReader over a Map keyed by `0x` address hex; counts its reads. */
export class FakeState implements TraceStateReader {
  reads = 0
  constructor(readonly accounts: Map<string, FakeAccount> = new Map()) {}
  private get(a: Address): FakeAccount | undefined {
    this.reads++
    return this.accounts.get(hex(a))
  }
  async getBalance(a: Address): Promise<bigint> {
    await Promise.resolve()
    return this.get(a)?.balance ?? 0n
  }
  async getNonce(a: Address): Promise<bigint> {
    return this.get(a)?.nonce ?? 0n
  }
  async getCode(a: Address): Promise<Uint8Array> {
    return this.get(a)?.code ?? new Uint8Array(0)
  }
  async getStorage(a: Address, slot: Uint8Array): Promise<Uint8Array> {
    return this.get(a)?.storage?.get(hex(slot)) ?? new Uint8Array(32)
  }
  async exists(a: Address): Promise<boolean> {
    return this.get(a) !== undefined
  }
}

/** geth's names for the opcodes the tests use. */
export const OP = {
  STOP: 0x00,
  ADD: 0x01,
  MSTORE: 0x52,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMPDEST: 0x5b,
  PUSH0: 0x5f,
  PUSH1: 0x60,
  PUSH2: 0x61,
  DUP1: 0x80,
  CALL: 0xf1,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  REVERT: 0xfd,
  INVALID: 0xfe,
} as const
const NAMES = new Map<number, string>(Object.entries(OP).map(([name, code]) => [code, name]))

export interface FakeStep {
  op: number
  stack?: bigint[]
  memory?: Uint8Array
  gas?: bigint
  cost?: bigint
  /** Makes the step fail: onOpcode then onFault with this error. */
  fault?: string
}

export interface FakeFrame {
  type: FrameType
  from: Address
  to: Address
  input?: Uint8Array
  value?: bigint
  gas?: bigint
  /** Steps, and nested frames entered at that point. */
  body: (FakeStep | FakeFrame)[]
  output?: Uint8Array
  gasUsed?: bigint
  error?: string
}

export const txInfo = (over: Partial<TxStartInfo> = {}): TxStartInfo => ({
  blockNumber: 7n,
  blockHash: new Uint8Array(32).fill(0xbb),
  timestamp: 1_700_000_000n,
  coinbase: addr(0xcb),
  baseFee: 7n,
  txIndex: 2,
  txHash: new Uint8Array(32).fill(0xaa),
  from: addr(1),
  to: addr(2),
  input: new Uint8Array([0xde, 0xad]),
  value: 5n,
  gasLimit: 100_000n,
  gasPrice: 1_000_000_007n,
  intrinsicGas: 21_064n,
  ...over,
})

function isFrame(x: FakeStep | FakeFrame): x is FakeFrame {
  return 'body' in x
}

async function playFrame(tracer: Tracer, frame: FakeFrame, depth: number, state: TraceStateReader): Promise<void> {
  await tracer.onEnter?.(
    {
      type: frame.type,
      depth,
      from: frame.from,
      to: frame.to,
      input: frame.input ?? new Uint8Array(0),
      gas: frame.gas ?? 50_000n,
      value: frame.value ?? 0n,
    },
    state,
  )
  let pc = 0
  let gas = frame.gas ?? 50_000n
  for (const item of frame.body) {
    if (isFrame(item)) {
      await playFrame(tracer, item, depth + 1, state)
      continue
    }
    const step: OpcodeStep = {
      pc,
      op: item.op,
      opName: NAMES.get(item.op) ?? `opcode ${item.op}`,
      gas: item.gas ?? gas,
      cost: item.cost ?? 3n,
      depth,
      stack: item.stack ?? [],
      memory: item.memory ?? new Uint8Array(0),
      returnData: new Uint8Array(0),
      refund: 0n,
      contract: frame.to,
      codeAddress: frame.to,
      caller: frame.from,
      callValue: frame.value ?? 0n,
      input: frame.input ?? new Uint8Array(0),
    }
    await tracer.onOpcode?.(step, state)
    if (item.fault !== undefined) await tracer.onFault?.(step, item.fault, state)
    pc += item.op >= OP.PUSH1 && item.op <= 0x7f ? item.op - OP.PUSH1 + 2 : 1
    gas -= step.cost
  }
  await tracer.onExit?.(
    {
      depth,
      output: frame.output ?? new Uint8Array(0),
      gasUsed: frame.gasUsed ?? 1_000n,
      error: frame.error,
      reverted: frame.error === 'execution reverted',
    },
    state,
  )
}

/** Plays one transaction whose top frame is `top` and returns `tracer.result()`. */
export async function runTx(
  tracer: Tracer,
  top: FakeFrame,
  state: TraceStateReader = new FakeState(),
  tx: TxStartInfo = txInfo(),
): Promise<unknown> {
  await tracer.onTxStart?.(tx, state)
  await playFrame(tracer, top, 0, state)
  await tracer.onTxEnd?.(
    { gasUsed: 42_000n, output: top.output ?? new Uint8Array(0), error: top.error, reverted: top.error === 'execution reverted' },
    state,
  )
  return tracer.result()
}

/** A frame running `steps` (single opcodes without stack), for counting tests. */
export const simpleFrame = (ops: number[]): FakeFrame => ({ type: 'CALL', from: addr(1), to: addr(2), body: ops.map((op) => ({ op })) })
