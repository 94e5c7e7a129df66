import { describe, expect, it } from 'vitest'
import { createAddress } from '../../../../../src/evm/store/evm-records.js'
import { TracerConfigError } from '../../../../../src/evm/tracing/hooks.js'
import { createPrestateTracer } from '../../../../../src/evm/tracing/native/prestate-tracer.js'
import { keccak256 } from '../../../../../src/crypto/index.js'
import { bytesToBigint, concatBytes } from '../../../../../src/primitives/hex.js'
import { FakeState, HookDriver, addr, data, expectJson, hex, txInfo, word } from './helpers.js'

const A = addr(0xaa) // sender
const C = addr(0xcc) // the called contract
const D = addr(0xdd) // called by C; receives K's balance
const K = addr(0x88) // self-destructs (an old contract: under Cancun only its balance moves)
const M = addr(0xfe) // coinbase
const E = createAddress(C, 1n) // created by CREATE
const G = createAddress(C, 3n) // created by CREATE, self-destructs in the same transaction
const INIT_F = data('0x600560005260206000f3')
const SALT = 0x5a17n
const F = keccak256(concatBytes(data('0xff'), C, word(SALT), keccak256(INIT_F))).subarray(12) // created by CREATE2
const asWord = (a: Uint8Array) => bytesToBigint(a)
const slot = (n: bigint) => hex(word(n))
const TX = txInfo({ to: C, value: 10n, gasLimit: 100_000n, gasPrice: 10n })

function initialState(): FakeState {
  return new FakeState()
    .set(A, { balance: 1_000_000n, nonce: 5n })
    .set(C, { nonce: 1n, code: data('0x6001'), storage: { 0: 1n, 1: 2n } })
    .set(D, { balance: 100n, nonce: 1n, code: data('0x6002') })
    .set(K, { balance: 50n, nonce: 1n, code: data('0x6003') })
}

/**
 * A → C (10 wei): C reads slot 0, writes slot 1 (2 → 3) and slot 2 (0 → 7), reads the empty slot 3,
 * calls D, CREATEs E, CREATE2s F, CREATEs G which self-destructs to A, reads K's balance and has K
 * self-destruct to D. The fee (60,000 gas × 10) goes to the coinbase M.
 */
async function play(d: HookDriver): Promise<void> {
  const s = d.state
  await d.txStart(TX)
  s.set(A, { balance: 1_000_000n - 10n - 600_000n, nonce: 6n }).set(C, { balance: 10n })
  await d.enter('CALL', A, C, { gas: 79_000n, value: 10n })
  await d.op('SLOAD', C, [0n])
  await d.op('SSTORE', C, [3n, 1n])
  s.set(C, { storage: { 1: 3n } })
  await d.op('SSTORE', C, [7n, 2n])
  s.set(C, { storage: { 2: 7n } })
  await d.op('SLOAD', C, [3n])
  await d.op('CALL', C, [0n, 0n, 0n, 0n, 0n, asWord(D), 5_000n])
  await d.op('CREATE', C, [5n, 0n, 0n])
  s.set(C, { nonce: 2n }).set(E, { nonce: 1n, code: data('0x6004') })
  const memory = concatBytes(INIT_F, new Uint8Array(6))
  await d.op('CREATE2', C, [SALT, BigInt(INIT_F.length), 0n, 0n], memory)
  s.set(C, { nonce: 3n }).set(F, { nonce: 1n, code: data('0x6005') })
  await d.op('CREATE', C, [0n, 0n, 0n])
  s.set(C, { nonce: 4n })
  await d.op('SELFDESTRUCT', G, [asWord(A)]) // G was created in this transaction: it is gone afterwards
  await d.op('BALANCE', C, [asWord(K)])
  await d.op('SELFDESTRUCT', K, [asWord(D)])
  s.set(K, { balance: 0n }).set(D, { balance: 150n })
  await d.exit({ gasUsed: 39_000n })
  s.set(M, { balance: 60_000n })
  await d.txEnd({ gasUsed: 60_000n })
}

async function trace(tracerConfig: Record<string, unknown> | undefined): Promise<unknown> {
  const d = new HookDriver(await createPrestateTracer({ tracerConfig }), initialState())
  await play(d)
  return d.tracer.result()
}

/** An object with keys in ascending order, as geth marshals a Go map. */
const sorted = (entries: [Uint8Array | string, unknown][]) =>
  Object.fromEntries(entries.map(([k, v]) => [typeof k === 'string' ? k : hex(k), v] as const).sort(([a], [b]) => (a < b ? -1 : 1)))

describe('prestateTracer', () => {
  it('every touched account before the transaction; created accounts that were empty are left out', async () => {
    expectJson(
      await trace(undefined),
      sorted([
        [A, { balance: '0xf4240', nonce: 5 }],
        [
          C,
          {
            balance: '0x0',
            code: '0x6001',
            nonce: 1,
            storage: sorted([
              [slot(0n), slot(1n)],
              [slot(1n), slot(2n)],
              [slot(2n), slot(0n)],
              [slot(3n), slot(0n)],
            ]),
          },
        ],
        [D, { balance: '0x64', code: '0x6002', nonce: 1 }],
        [K, { balance: '0x32', code: '0x6003', nonce: 1 }],
        [M, { balance: '0x0' }],
      ]),
    )
  })

  it('disableCode and disableStorage leave those fields out', async () => {
    const result = (await trace({ disableCode: true, disableStorage: true })) as Record<string, unknown>
    expect(result[hex(C)]).toEqual({ balance: '0x0', nonce: 1 })
    expect(result[hex(D)]).toEqual({ balance: '0x64', nonce: 1 })
  })

  it('diffMode: changed fields after, changed non-zero slots before; self-destructed accounts only before', async () => {
    expectJson(await trace({ diffMode: true }), {
      post: sorted([
        [A, { balance: '0x61a76', nonce: 6 }],
        [
          C,
          {
            balance: '0xa',
            nonce: 4,
            storage: sorted([
              [slot(1n), slot(3n)],
              [slot(2n), slot(7n)],
            ]),
          },
        ],
        [D, { balance: '0x96' }],
        [E, { code: '0x6004', nonce: 1 }],
        [F, { code: '0x6005', nonce: 1 }],
        [M, { balance: '0xea60' }],
      ]),
      pre: sorted([
        [A, { balance: '0xf4240', nonce: 5 }],
        [C, { balance: '0x0', code: '0x6001', nonce: 1, storage: { [slot(1n)]: slot(2n) } }],
        [D, { balance: '0x64', code: '0x6002', nonce: 1 }],
        [K, { balance: '0x32', code: '0x6003', nonce: 1 }],
        [M, { balance: '0x0' }],
      ]),
    })
  })

  it('diffMode with disableCode: code changes are not compared', async () => {
    const { post } = (await trace({ diffMode: true, disableCode: true })) as { post: Record<string, unknown> }
    expect(post[hex(E)]).toEqual({ nonce: 1 })
    expect(post[hex(C)]).toEqual({
      balance: '0xa',
      nonce: 4,
      storage: sorted([
        [slot(1n), slot(3n)],
        [slot(2n), slot(7n)],
      ]),
    })
  })

  it('diffMode: an account that only was read is left out of pre', async () => {
    const d = new HookDriver(await createPrestateTracer({ tracerConfig: { diffMode: true } }), initialState())
    await d.txStart(TX)
    await d.op('EXTCODESIZE', C, [asWord(D)])
    await d.op('SLOAD', C, [0n])
    await d.txEnd()
    expectJson(await d.tracer.result(), { post: {}, pre: {} })
  })

  it('a creation at an address that held a balance keeps it in pre (geth create_suicide)', async () => {
    const created = createAddress(A, 5n)
    const d = new HookDriver(await createPrestateTracer({ tracerConfig: { diffMode: true } }), initialState().set(created, { balance: 7n }))
    await d.txStart(txInfo({ to: undefined, input: INIT_F, gasPrice: 0n }))
    d.state.set(A, { nonce: 6n })
    await d.enter('CREATE', A, created, { input: INIT_F })
    await d.op('SELFDESTRUCT', created, [asWord(A)])
    d.state.set(A, { balance: 1_000_007n }).set(created, { balance: 0n })
    await d.exit()
    await d.txEnd()
    expectJson(await d.tracer.result(), {
      post: sorted([[A, { balance: '0xf4247', nonce: 6 }]]),
      pre: sorted([
        [A, { balance: '0xf4240', nonce: 5 }],
        [created, { balance: '0x7' }],
      ]),
    })
  })

  it('a contract creation transaction: the new contract is only in post', async () => {
    const created = createAddress(A, 5n)
    const d = new HookDriver(await createPrestateTracer({ tracerConfig: { diffMode: true } }), initialState())
    await d.txStart(txInfo({ to: undefined, input: INIT_F, gasPrice: 0n }))
    d.state.set(A, { nonce: 6n })
    await d.op('SSTORE', created, [1n, 0n])
    d.state.set(created, { nonce: 1n, code: data('0x6005'), storage: { 0: 1n } })
    await d.txEnd()
    expectJson(await d.tracer.result(), {
      post: sorted([
        [A, { nonce: 6 }],
        [created, { code: '0x6005', nonce: 1, storage: { [slot(0n)]: slot(1n) } }],
      ]),
      pre: sorted([[A, { balance: '0xf4240', nonce: 5 }]]),
    })
  })

  it('rejects a bad tracerConfig', () => {
    expect(() => createPrestateTracer({ tracerConfig: { diffMode: 'true' } })).toThrow(
      new TracerConfigError('invalid tracerConfig for prestateTracer: diffMode must be a boolean, got string'),
    )
  })

  it('stop: the result fails with the reason', async () => {
    const d = new HookDriver(await createPrestateTracer({ tracerConfig: undefined }), initialState())
    await d.txStart(TX)
    d.tracer.stop!(new Error('execution timeout'))
    await d.op('SLOAD', C, [0n])
    expect(() => d.tracer.result()).toThrow('execution timeout')
  })
})
