/** Test helpers for the EVM application: a temp Database, signed transactions, tiny hand-assembled contracts. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import type { Common } from '@ethereumjs/common'
import { Database } from '../../../src/db/database.js'
import { EvmApplication, type EvmApplicationOptions } from '../../../src/evm/app.js'
import { parseAppState, type AppStateJson } from '../../../src/evm/genesis.js'
import type { ConsensusParams } from '../../../src/abci/types.js'
import type { FinalizeBlockResponse } from '../../../src/abci/application.js'
import { sha256 } from '../../../src/crypto/index.js'
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes, bigintToBytes } from '../../../src/primitives/hex.js'
import { privateKeyToAddress } from '../../../src/crypto/index.js'

export const DEV_KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
export const DEV_ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as const
export const KEY2 = hexToBytes('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
export const ADDRESS2 = bytesToHex(privateKeyToAddress(KEY2)) as `0x${string}`
export const PROPOSER = hexToBytes('0x' + 'ab'.repeat(20))
export const FEE_RECIPIENT = `0x${'fe'.repeat(20)}` as const
export const CHAIN_ID = 'nodectl_9000-1'
export const ETHER = 10n ** 18n
export const GWEI = 10n ** 9n

export function consensusParams(maxGas = 30_000_000n): ConsensusParams {
  return {
    block: { maxBytes: 22020096n, maxGas },
    evidence: { maxAgeNumBlocks: 100000n, maxAgeDurationNs: 172800000000000n, maxBytes: 1048576n },
    validator: { pubKeyTypes: ['ed25519'] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  }
}

export function defaultAppState(extra: AppStateJson['evm']['accounts'] = []): AppStateJson {
  return {
    evm: {
      accounts: [
        { address: DEV_ADDRESS, balance: (10_000n * ETHER).toString(), nonce: '0' },
        { address: ADDRESS2, balance: (100n * ETHER).toString() },
        ...extra,
      ],
      fee_recipients: { [bytesToHex(PROPOSER).slice(2).toUpperCase()]: FEE_RECIPIENT },
    },
    fee_market: {
      base_fee: '1000000000',
      elasticity_multiplier: 2,
      base_fee_change_denominator: 8,
      min_gas_price: '0',
      no_base_fee: false,
    },
  }
}

export interface Harness {
  dir: string
  db: Database
  app: EvmApplication
  /** Next height to finalize. */
  height: number
  time: number
  finalize(txs: Uint8Array[]): Promise<FinalizeBlockResponse>
  reopen(): Promise<void>
  close(): Promise<void>
}

export function blockHash(height: number): Uint8Array {
  return sha256(utf8ToBytes(`block-${height}`))
}

/** An app over a fresh temp Database, InitChain done (its writes go with the first Commit). */
export async function createHarness(
  opts: { appState?: AppStateJson; maxGas?: bigint; params?: ConsensusParams; app?: Partial<EvmApplicationOptions> } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-evm-'))
  const appState = opts.appState ?? defaultAppState()
  const makeApp = (db: Database) => EvmApplication.create({ db, chainId: CHAIN_ID, genesis: parseAppState(appState), ...opts.app })
  let db = new Database({ path: dir })
  await db.open()
  let app = await makeApp(db)
  await app.initChain({
    time: { seconds: 1_700_000_000, nanos: 0 },
    chainId: CHAIN_ID,
    consensusParams: opts.params ?? consensusParams(opts.maxGas),
    validators: [],
    appStateBytes: utf8ToBytes(JSON.stringify(appState)),
    initialHeight: 1,
  })
  const h: Harness = {
    dir,
    get db() {
      return db
    },
    get app() {
      return app
    },
    height: 1,
    time: 1_700_000_000,
    async finalize(txs) {
      const height = h.height
      h.time += 2
      const resp = await app.finalizeBlock({
        txs,
        decidedLastCommit: { round: 0, votes: [] },
        hash: blockHash(height),
        height,
        time: { seconds: h.time, nanos: 0 },
        nextValidatorsHash: new Uint8Array(32),
        proposerAddress: PROPOSER,
      })
      await app.commit()
      h.height++
      return resp
    },
    async reopen() {
      await db.close()
      db = new Database({ path: dir })
      await db.open()
      app = await makeApp(db)
    },
    async close() {
      await db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return h
}

export interface TxParams {
  nonce: bigint
  to?: `0x${string}`
  value?: bigint
  data?: Uint8Array
  gasLimit?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  gasPrice?: bigint
}

export function sign1559(common: Common, key: Uint8Array, p: TxParams): Uint8Array {
  return createFeeMarket1559Tx(
    {
      chainId: common.chainId(),
      nonce: p.nonce,
      to: p.to,
      value: p.value ?? 0n,
      data: p.data ?? new Uint8Array(),
      gasLimit: p.gasLimit ?? 21_000n,
      maxFeePerGas: p.maxFeePerGas ?? 10n * GWEI,
      maxPriorityFeePerGas: p.maxPriorityFeePerGas ?? GWEI,
    },
    { common },
  )
    .sign(key)
    .serialize()
}

export function signLegacy(common: Common, key: Uint8Array, p: TxParams): Uint8Array {
  return createLegacyTx(
    {
      nonce: p.nonce,
      to: p.to,
      value: p.value ?? 0n,
      data: p.data ?? new Uint8Array(),
      gasLimit: p.gasLimit ?? 21_000n,
      gasPrice: p.gasPrice ?? 2n * GWEI,
    },
    { common },
  )
    .sign(key)
    .serialize()
}

export function sign2930(common: Common, key: Uint8Array, p: TxParams): Uint8Array {
  return createAccessList2930Tx(
    {
      chainId: common.chainId(),
      nonce: p.nonce,
      to: p.to,
      value: p.value ?? 0n,
      data: p.data ?? new Uint8Array(),
      gasLimit: p.gasLimit ?? 21_000n,
      gasPrice: p.gasPrice ?? 2n * GWEI,
      accessList: [],
    },
    { common },
  )
    .sign(key)
    .serialize()
}

// ─── a tiny assembler ─────────────────────────────────────────────────────

export const OP = {
  STOP: 0x00,
  SUB: 0x03,
  EQ: 0x14,
  ISZERO: 0x15,
  CALLER: 0x33,
  CALLDATALOAD: 0x35,
  CALLDATASIZE: 0x36,
  CODECOPY: 0x39,
  BLOCKHASH: 0x40,
  NUMBER: 0x43,
  MSTORE: 0x52,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  JUMPDEST: 0x5b,
  DUP1: 0x80,
  LOG2: 0xa2,
  RETURN: 0xf3,
  REVERT: 0xfd,
} as const

type Item =
  | number
  | { push: bigint | Uint8Array }
  | { label: string }
  | { ref: string }
  | { data: string; bytes: Uint8Array }
  | { len: string }

/** Assembles items: opcodes, pushes, labels (JUMPDEST), `ref` (PUSH2 of a label/data offset), `len` (PUSH2 of a data length), data blobs. */
export function asm(items: Item[]): Uint8Array {
  const offsets = new Map<string, number>()
  const lengths = new Map<string, number>()
  const size = (it: Item): number => {
    if (typeof it === 'number') return 1
    if ('push' in it) return 1 + pushBytes(it.push).length
    if ('label' in it) return 1
    if ('ref' in it || 'len' in it) return 3
    return it.bytes.length
  }
  let pc = 0
  for (const it of items) {
    if (typeof it === 'object' && 'label' in it) offsets.set(it.label, pc)
    if (typeof it === 'object' && 'data' in it) {
      offsets.set(it.data, pc)
      lengths.set(it.data, it.bytes.length)
    }
    pc += size(it)
  }
  const out: number[] = []
  for (const it of items) {
    if (typeof it === 'number') out.push(it)
    else if ('push' in it) {
      const b = pushBytes(it.push)
      out.push(0x5f + b.length, ...b)
    } else if ('label' in it) out.push(OP.JUMPDEST)
    else if ('ref' in it || 'len' in it) {
      const v = 'ref' in it ? offsets.get(it.ref)! : lengths.get(it.len)!
      out.push(0x61, v >> 8, v & 0xff)
    } else out.push(...it.bytes)
  }
  return new Uint8Array(out)
}

function pushBytes(v: bigint | Uint8Array): Uint8Array {
  if (v instanceof Uint8Array) return v
  const b = bigintToBytes(v)
  return b.length === 0 ? new Uint8Array([0]) : b
}

/** Init code that deploys `runtime`: CODECOPY(0, 15, len) then RETURN(0, len); the runtime starts at byte 15. */
export function deployCode(runtime: Uint8Array): Uint8Array {
  const n = runtime.length
  const prefix = [0x61, n >> 8, n & 0xff, 0x61, 0x00, 0x0f, 0x60, 0x00, OP.CODECOPY, 0x61, n >> 8, n & 0xff, 0x60, 0x00, OP.RETURN]
  return concatBytes(new Uint8Array(prefix), runtime)
}

export const STORE_TOPIC = hexToBytes('0x' + '11'.repeat(32))

/** ABI encoding of Error(string). */
export function errorData(reason: string): Uint8Array {
  const msg = utf8ToBytes(reason)
  const padded = new Uint8Array(Math.ceil(msg.length / 32) * 32)
  padded.set(msg)
  return concatBytes(hexToBytes('0x08c379a0'), bigintToBytes(32n, 32), bigintToBytes(BigInt(msg.length), 32), padded)
}

export const PANIC_DATA = concatBytes(hexToBytes('0x4e487b71'), bigintToBytes(0x11n, 32))

/**
 * The test contract. By calldata size: 0 → return slot 0; 32 → store the word in slot 0 and
 * LOG2(data = word, topics = [STORE_TOPIC, caller]); 4 → revert Panic(0x11); 3 → return
 * blockhash(number - 1); 2 → loop forever; anything else → revert Error("bad input").
 */
export const STORE_RUNTIME = asm([
  OP.CALLDATASIZE,
  OP.ISZERO,
  { ref: 'get' },
  OP.JUMPI,
  OP.CALLDATASIZE,
  { push: 32n },
  OP.EQ,
  { ref: 'set' },
  OP.JUMPI,
  OP.CALLDATASIZE,
  { push: 4n },
  OP.EQ,
  { ref: 'panic' },
  OP.JUMPI,
  OP.CALLDATASIZE,
  { push: 3n },
  OP.EQ,
  { ref: 'hash' },
  OP.JUMPI,
  OP.CALLDATASIZE,
  { push: 2n },
  OP.EQ,
  { ref: 'loop' },
  OP.JUMPI,
  { len: 'err' },
  { ref: 'err' },
  { push: 0n },
  OP.CODECOPY,
  { len: 'err' },
  { push: 0n },
  OP.REVERT,
  { label: 'get' },
  { push: 0n },
  OP.SLOAD,
  { push: 0n },
  OP.MSTORE,
  { push: 32n },
  { push: 0n },
  OP.RETURN,
  { label: 'set' },
  { push: 0n },
  OP.CALLDATALOAD,
  OP.DUP1,
  { push: 0n },
  OP.SSTORE,
  { push: 0n },
  OP.MSTORE,
  OP.CALLER,
  { push: STORE_TOPIC },
  { push: 32n },
  { push: 0n },
  OP.LOG2,
  OP.STOP,
  { label: 'panic' },
  { len: 'panicdata' },
  { ref: 'panicdata' },
  { push: 0n },
  OP.CODECOPY,
  { len: 'panicdata' },
  { push: 0n },
  OP.REVERT,
  { label: 'hash' },
  { push: 1n },
  OP.NUMBER,
  OP.SUB,
  OP.BLOCKHASH,
  { push: 0n },
  OP.MSTORE,
  { push: 32n },
  { push: 0n },
  OP.RETURN,
  { label: 'loop' },
  { ref: 'loop' },
  OP.JUMP,
  { data: 'err', bytes: errorData('bad input') },
  { data: 'panicdata', bytes: PANIC_DATA },
])

export function word(n: bigint): Uint8Array {
  return bigintToBytes(n, 32)
}
