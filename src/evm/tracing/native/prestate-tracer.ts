/**
 * geth's `prestateTracer` (eth/tracers/native/prestate.go): every account the transaction touched, as
 * it was before the transaction: balance, nonce, code and the storage slots it read or wrote. Touched
 * means the sender, the recipient (or created address), the coinbase, and what opcodes name: SLOAD/
 * SSTORE slots, BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH and SELFDESTRUCT targets, CALL* targets, CREATE/CREATE2 addresses.
 *
 * tracerConfig `diffMode` returns `{post, pre}` instead: `pre` keeps only accounts that changed (and
 * only their changed, non-zero slots), `post` holds only the fields that changed; a self-destructed
 * account stays in `pre` whole and is absent from `post`; an account created by the transaction is
 * absent from `pre` when it was empty before. `disableCode` and `disableStorage` leave those fields out.
 *
 * Relies on the executor calling onTxStart before the sender pays for gas or its nonce moves, and
 * onTxEnd after the fee is paid, so reads there are the true before and after states (geth's OnTxStart
 * and OnTxEnd).
 */
import { keccak256 } from '../../../crypto/index.js'
import { bigintToBytes, bytesToHex, concatBytes, equalBytes, hexToBytes } from '../../../primitives/hex.js'
import { createAddress } from '../../store/evm-records.js'
import type { Address, OpcodeStep, Tracer, TracerFactory, TraceStateReader } from '../hooks.js'
import { encodeState, type AccountState } from './prestate-json.js'
import { readFlags } from './tracer-config.js'

const OP = {
  SLOAD: 0x54,
  SSTORE: 0x55,
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  EXTCODEHASH: 0x3f,
  SELFDESTRUCT: 0xff,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  DELEGATECALL: 0xf4,
  STATICCALL: 0xfa,
  CREATE: 0xf0,
  CREATE2: 0xf5,
} as const

/** geth's cap on zero-padding CREATE2 init code read past the end of memory (internal.GetMemoryCopyPadded): 1 MiB. */
const MEMORY_PAD_LIMIT = 1024 * 1024
const ADDRESS_MASK = (1n << 160n) - 1n

const wordToAddress = (word: bigint): Address => bigintToBytes(word & ADDRESS_MASK, 20)

/** EIP-1014: keccak256(0xff ++ sender ++ salt ++ keccak256(init))[12:]. */
function create2Address(sender: Address, salt: bigint, init: Uint8Array): Address {
  return keccak256(concatBytes(Uint8Array.of(0xff), sender, bigintToBytes(salt, 32), keccak256(init))).subarray(12)
}

/** memory[offset, offset+size), zero-padded past its end; undefined beyond geth's padding limit. */
function readMemoryPadded(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array | undefined {
  const end = offset + size
  if (end > BigInt(memory.length) && end - BigInt(memory.length) > BigInt(MEMORY_PAD_LIMIT)) return undefined
  const out = new Uint8Array(Number(size))
  if (offset < BigInt(memory.length)) out.set(memory.subarray(Number(offset), Math.min(Number(end), memory.length)))
  return out
}

const slotKey = (word: bigint): string => bytesToHex(bigintToBytes(word, 32))

/** Builds a prestateTracer for one transaction. */
export const createPrestateTracer: TracerFactory = ({ tracerConfig }) => {
  const config = readFlags('prestateTracer', tracerConfig, ['diffMode', 'disableCode', 'disableStorage'] as const)
  const pre = new Map<string, AccountState>()
  const post = new Map<string, AccountState>()
  const created = new Set<string>()
  const deleted = new Set<string>()
  let stopped: Error | undefined

  async function lookupAccount(state: TraceStateReader, address: Address): Promise<void> {
    const key = bytesToHex(address)
    if (pre.has(key)) return
    const account: AccountState = {
      balance: await state.getBalance(address),
      nonce: await state.getNonce(address),
      code: await state.getCode(address),
      storage: undefined,
    }
    // geth decides emptiness with the code before disableCode drops it.
    const empty = account.nonce === 0n && account.code!.length === 0 && account.balance === 0n
    if (config.disableCode) account.code = undefined
    if (!config.disableStorage) account.storage = new Map()
    pre.set(key, { ...account, empty })
  }

  async function lookupStorage(state: TraceStateReader, address: Address, slot: bigint): Promise<void> {
    const account = pre.get(bytesToHex(address))
    const key = slotKey(slot)
    if (!account?.storage || account.storage.has(key)) return
    account.storage.set(key, await state.getStorage(address, bigintToBytes(slot, 32)))
  }

  /** geth OnOpcode: which accounts and slots an opcode is about to touch (stack top is the last item). */
  function onOpcode(step: OpcodeStep, state: TraceStateReader): Promise<void> | undefined {
    const stack = step.stack
    const n = stack.length
    switch (step.op) {
      case OP.SLOAD:
      case OP.SSTORE:
        return n >= 1 ? lookupStorage(state, step.contract, stack[n - 1]!) : undefined
      case OP.SELFDESTRUCT:
        if (n < 1) return undefined
        deleted.add(bytesToHex(step.contract))
        return lookupAccount(state, wordToAddress(stack[n - 1]!))
      case OP.BALANCE:
      case OP.EXTCODESIZE:
      case OP.EXTCODECOPY:
      case OP.EXTCODEHASH:
        return n >= 1 ? lookupAccount(state, wordToAddress(stack[n - 1]!)) : undefined
      case OP.CALL:
      case OP.CALLCODE:
      case OP.DELEGATECALL:
      case OP.STATICCALL:
        return n >= 5 ? lookupAccount(state, wordToAddress(stack[n - 2]!)) : undefined
      case OP.CREATE: {
        const sender = step.contract.slice()
        return state.getNonce(sender).then((nonce) => lookupCreated(state, createAddress(sender, nonce)))
      }
      case OP.CREATE2: {
        if (n < 4) return undefined
        const init = readMemoryPadded(step.memory, stack[n - 2]!, stack[n - 3]!)
        return init === undefined ? undefined : lookupCreated(state, create2Address(step.contract, stack[n - 4]!, init))
      }
      default:
        return undefined
    }
  }

  function lookupCreated(state: TraceStateReader, address: Address): Promise<void> {
    created.add(bytesToHex(address))
    return lookupAccount(state, address)
  }

  /** geth processDiffState: compare every looked-up account with the state after the transaction. */
  async function diffState(state: TraceStateReader): Promise<void> {
    for (const [key, before] of pre) {
      if (deleted.has(key)) continue
      const address = hexToBytes(key)
      const after: AccountState = { balance: undefined, nonce: undefined, code: undefined, storage: new Map() }
      const balance = await state.getBalance(address)
      if (balance !== before.balance) after.balance = balance
      const nonce = await state.getNonce(address)
      if (nonce !== before.nonce) after.nonce = nonce
      if (!config.disableCode) {
        const code = await state.getCode(address)
        if (!equalBytes(code, before.code ?? new Uint8Array())) after.code = code
      }
      let modified = after.balance !== undefined || after.nonce !== undefined || after.code !== undefined
      for (const [slot, value] of before.storage ?? []) {
        const current = await state.getStorage(address, hexToBytes(slot))
        if (isZeroWord(value) || equalBytes(value, current)) before.storage!.delete(slot)
        if (equalBytes(value, current)) continue
        modified = true
        if (!isZeroWord(current)) after.storage!.set(slot, current)
      }
      if (modified) post.set(key, after)
      else pre.delete(key)
    }
  }

  const tracer: Tracer = {
    onTxStart: async (tx, state) => {
      if (stopped) return
      if (tx.to === undefined) {
        const to = createAddress(tx.from, await state.getNonce(tx.from))
        created.add(bytesToHex(to))
        await lookupAccount(state, to)
      } else await lookupAccount(state, tx.to)
      await lookupAccount(state, tx.from)
      await lookupAccount(state, tx.coinbase)
    },
    onOpcode: (step, state) => (stopped ? undefined : onOpcode(step, state)),
    onTxEnd: async (_result, state) => {
      if (stopped) return
      if (config.diffMode) await diffState(state)
      // A contract the transaction created had no state before it, unless the address already held some.
      for (const key of created) if (pre.get(key)?.empty) pre.delete(key)
    },
    result: () => {
      if (stopped) throw stopped
      return config.diffMode ? { post: encodeState(post), pre: encodeState(pre) } : encodeState(pre)
    },
    stop: (reason) => {
      stopped = reason
    },
  }
  return tracer
}

function isZeroWord(word: Uint8Array): boolean {
  return word.every((b) => b === 0)
}
