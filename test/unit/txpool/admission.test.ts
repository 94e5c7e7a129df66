/** Admission: every rejection with geth's exact text, and what is accepted. */
import { describe, expect, it } from 'vitest'
import { TxDecodeError } from '../../../src/evm/txs/tx.js'
import { TxPoolError, TxPoolRejection } from '../../../src/txpool/tx-pool-error.js'
import { TxCode } from '../../../src/evm/txs/tx-codes.js'
import { computeIntrinsicGas } from '../../../src/evm/txs/intrinsic-gas.js'
import { TxPool } from '../../../src/txpool/tx-pool.js'
import { defaultTxPoolOptions } from '../../../src/txpool/options.js'
import { silentLogger } from '../../../src/utils/logger.js'
import {
  ADDRS,
  ETHER,
  FakeState,
  GWEI,
  KEYS,
  decode,
  makePool,
  rejection,
  sign1559,
  sign1559TipAboveCap,
  sign2930,
  signLegacy,
  signUnprotected,
} from './helpers.js'

const [K0, K1] = KEYS as [Uint8Array, Uint8Array]
const CHECKSUM0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

describe('txpool admission', () => {
  it('accepts legacy, access-list and dynamic-fee transactions', async () => {
    const { pool } = makePool()
    const a = await pool.add(signLegacy(K0, { nonce: 0n }))
    const b = await pool.add(sign2930(K0, { nonce: 1n }))
    const c = await pool.add(sign1559(K0, { nonce: 2n }))
    expect([a.type, b.type, c.type]).toEqual([0, 1, 2])
    expect(pool.status()).toEqual({ pending: 3, queued: 0 })
    expect(pool.size()).toBe(3)
    expect(a.fromHex).toBe(ADDRS[0])
  })

  it('rejects undecodable bytes with the decoder message', async () => {
    const { pool } = makePool()
    const raw = new Uint8Array([1, 2, 3])
    let expected = ''
    try {
      decode(raw)
    } catch (err) {
      expect(err).toBeInstanceOf(TxDecodeError)
      expected = (err as Error).message
    }
    const err = await pool.add(raw).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TxPoolError)
    expect((err as TxPoolError).reason).toBe(TxPoolRejection.CheckTx)
    expect((err as TxPoolError).checkTx?.code).toBe(TxCode.TxDecode)
    expect((err as Error).message).toBe(expected)
  })

  it('rejects an unprotected legacy tx unless allowUnprotectedTxs', async () => {
    const raw = signUnprotected(K0)
    expect(decode(raw).chainId).toBeUndefined()
    expect(await rejection(makePool().pool, raw)).toBe('only replay-protected (EIP-155) transactions allowed over RPC')
    const { pool } = makePool({}, undefined, { allowUnprotectedTxs: true })
    await pool.add(raw)
    expect(pool.has(decode(raw).hash)).toBe(true)
  })

  it("enforces the caller's txfee-cap on gas × fee cap (geth checkTxFee), before replay protection", async () => {
    const { pool } = makePool()
    // 1,000,000 gas × 1,000 gwei = 1 ether.
    const dear = sign1559(K0, { gasLimit: 1_000_000n, feeCap: 1000n * GWEI, tip: GWEI })
    const err = await pool.add(dear, { txFeeCap: 0.5 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TxPoolError)
    expect((err as TxPoolError).reason).toBe(TxPoolRejection.FeeCapExceeded)
    expect((err as Error).message).toBe('tx fee (1.00 ether) exceeds the configured cap (0.50 ether)')
    const legacy = signLegacy(K0, { gasLimit: 100_000n, gasPrice: 30_000n * GWEI })
    expect(await pool.add(legacy, { txFeeCap: 1 }).catch((e: Error) => e.message)).toBe(
      'tx fee (3.00 ether) exceeds the configured cap (1.00 ether)',
    )
    expect(await pool.add(signUnprotected(K0), { txFeeCap: 1e-9 }).catch((e: Error) => e.message)).toMatch(
      /^tx fee \(0\.00 ether\) exceeds the configured cap \(0\.00 ether\)$/,
    )
    // At the cap, with no cap (0), and on the pool's own path (no option) the transaction is accepted.
    await pool.add(dear, { txFeeCap: 1 })
    await pool.add(signLegacy(K0, { nonce: 1n, gasLimit: 100_000n, gasPrice: 30_000n * GWEI }), { txFeeCap: 0 })
    await pool.add(sign1559(K0, { nonce: 2n, gasLimit: 1_000_000n, feeCap: 5000n * GWEI }))
    expect(pool.status().pending).toBe(3)
  })

  it('rejects an oversized tx', async () => {
    const raw = sign1559(K0, { data: new Uint8Array(131072), gasLimit: 1_000_000n })
    expect(await rejection(makePool().pool, raw)).toBe(`oversized data: transaction size ${raw.length}, limit 131072`)
  })

  it("rejects a tx above the block gas limit, and follows the application's limit", async () => {
    const { pool, rules } = makePool()
    expect(await rejection(pool, sign1559(K0, { gasLimit: 30_000_001n }))).toBe('exceeds block gas limit')
    rules.gasLimit = 20_000n
    expect(await rejection(pool, sign1559(K0, { gasLimit: 21_000n }))).toBe('exceeds block gas limit')
  })

  it('rejects init code above 49152 bytes', async () => {
    const raw = sign1559(K0, { to: null, data: new Uint8Array(49153).fill(1), gasLimit: 2_000_000n })
    expect(await rejection(makePool().pool, raw)).toBe('max initcode size exceeded: code size 49153, limit 49152')
  })

  it('rejects a tip above the fee cap', async () => {
    expect(await rejection(makePool().pool, sign1559TipAboveCap(K0, 3n * GWEI, 2n * GWEI))).toBe(
      'max priority fee per gas higher than max fee per gas',
    )
  })

  it('computes intrinsic gas (base, create, calldata, access list, init code words) and rejects below it', async () => {
    const { pool } = makePool()
    expect(await rejection(pool, sign1559(K0, { gasLimit: 20_999n }))).toBe('intrinsic gas too low: gas 20999, minimum needed 21000')
    // calldata: 2 zero bytes (4 each) + 3 non-zero (16 each)
    const call = decode(sign1559(K0, { data: new Uint8Array([0, 1, 0, 2, 3]), gasLimit: 100_000n }))
    expect(computeIntrinsicGas(call)).toBe(21000n + 2n * 4n + 3n * 16n)
    // creation: 53000 + 33 non-zero bytes + 2 init code words × 2
    const create = decode(sign1559(K0, { to: null, data: new Uint8Array(33).fill(0x60), gasLimit: 100_000n }))
    expect(computeIntrinsicGas(create)).toBe(53000n + 33n * 16n + 2n * 2n)
    // access list: 2 addresses (2400 each), 3 storage keys (1900 each)
    const key = '0x' + '00'.repeat(31) + '01'
    const accessList = [
      { address: ADDRS[1]!, storageKeys: [key, key.replace(/01$/, '02')] },
      { address: ADDRS[2]!, storageKeys: [key] },
    ]
    const withList = decode(sign2930(K0, { accessList, gasLimit: 100_000n }))
    const needed = 21000n + 2n * 2400n + 3n * 1900n
    expect(computeIntrinsicGas(withList)).toBe(needed)
    expect(await rejection(pool, sign2930(K0, { accessList, gasLimit: needed - 1n }))).toBe(
      `intrinsic gas too low: gas ${needed - 1n}, minimum needed ${needed}`,
    )
    await pool.add(sign2930(K0, { accessList, gasLimit: needed }))
  })

  it('rejects a tip (legacy: gas price) below the minimum gas price, which can change at run time', async () => {
    const { pool, rules } = makePool({ minGasPrice: GWEI })
    expect(await rejection(pool, sign1559(K0, { tip: GWEI / 2n }))).toBe(
      `transaction underpriced: gas tip cap ${GWEI / 2n}, minimum needed ${GWEI}`,
    )
    expect(await rejection(pool, signLegacy(K0, { gasPrice: GWEI - 1n }))).toBe(
      `transaction underpriced: gas tip cap ${GWEI - 1n}, minimum needed ${GWEI}`,
    )
    await pool.add(signLegacy(K0, { gasPrice: GWEI }))
    pool.setMinGasPrice(GWEI / 2n)
    rules.minGasPrice = GWEI / 2n
    expect(pool.getMinGasPrice()).toBe(GWEI / 2n)
    await pool.add(sign1559(K0, { nonce: 1n, tip: GWEI / 2n }))
  })

  it('drops pooled transactions below a raised minimum gas price', async () => {
    const { pool } = makePool()
    await pool.add(sign1559(K0, { nonce: 0n, tip: 3n * GWEI, feeCap: 4n * GWEI }))
    const low = await pool.add(sign1559(K0, { nonce: 1n, tip: GWEI }))
    const after = await pool.add(sign1559(K0, { nonce: 2n, tip: 3n * GWEI, feeCap: 4n * GWEI }))
    pool.setMinGasPrice(2n * GWEI)
    expect(pool.has(low.hash)).toBe(false)
    // The later nonce cannot run any more: it waits in the queue.
    expect(
      pool
        .queued()
        .get(ADDRS[0]!)
        ?.map((t) => t.hashHex),
    ).toEqual([after.hashHex])
    expect(pool.status()).toEqual({ pending: 1, queued: 1 })
  })

  it('rejects a transaction already in the pool', async () => {
    const { pool } = makePool()
    const raw = sign1559(K0)
    await pool.add(raw)
    expect(await rejection(pool, raw)).toBe('already known')
    // also when queued
    const future = sign1559(K0, { nonce: 5n })
    await pool.add(future)
    expect(await rejection(pool, future)).toBe('already known')
  })

  it('rejects a nonce below the state nonce', async () => {
    const { pool, state } = makePool()
    state.set(ADDRS[0]!, 5n, ETHER)
    expect(await rejection(pool, sign1559(K0, { nonce: 3n }))).toBe(`nonce too low: address ${CHECKSUM0}, tx: 3 state: 5`)
  })

  it('rejects a tx its sender cannot pay: gas × fee cap + value', async () => {
    const { pool, state } = makePool()
    const cost = 21000n * 2n * GWEI + 5n
    state.set(ADDRS[0]!, 0n, cost - 1n)
    expect(await rejection(pool, sign1559(K0, { value: 5n }))).toBe(
      `insufficient funds for gas * price + value: address ${CHECKSUM0} have ${cost - 1n} want ${cost}`,
    )
  })

  it('counts the sender pending spending: a second tx the balance cannot also cover is rejected', async () => {
    const { pool, state } = makePool()
    const cost = 21000n * 2n * GWEI
    state.set(ADDRS[0]!, 0n, cost + cost / 2n)
    await pool.add(sign1559(K0, { nonce: 0n }))
    expect(await rejection(pool, sign1559(K0, { nonce: 1n }))).toBe(
      `insufficient funds for gas * price + value: address ${CHECKSUM0} have ${cost + cost / 2n} want ${2n * cost}`,
    )
    // A replacement is charged only the difference.
    await pool.add(sign1559(K0, { nonce: 0n, tip: 2n * GWEI, feeCap: (22n * GWEI) / 10n }))
  })

  it("asks the application's CheckTx once per new transaction and passes its refusal on", async () => {
    const asked: string[] = []
    const decoded: Uint8Array[] = []
    const refused = sign1559(K0, { nonce: 1n })
    const app = {
      checkTx: async (raw: Uint8Array, type: string) => {
        asked.push(type)
        const code = raw === refused ? TxCode.InsufficientFee : TxCode.OK
        return { code, data: new Uint8Array(0), log: code === 0 ? '' : 'no', gasWanted: 21000n, gasUsed: 0n, events: [], codespace: '' }
      },
    }
    const state = new FakeState().set(ADDRS[0]!, 0n, ETHER)
    const pool = new TxPool({
      decode: (raw) => {
        decoded.push(raw)
        return decode(raw)
      },
      app,
      state,
      nextBaseFee: () => 0n,
      options: defaultTxPoolOptions,
      logger: silentLogger,
    })
    const raw = sign1559(K0, { nonce: 0n })
    const admitted = await pool.admit(raw)
    expect(admitted.check.gasWanted).toBe(21000n)
    expect(await rejection(pool, raw)).toBe('already known')
    const err = await pool.add(refused).catch((e: unknown) => e)
    expect((err as TxPoolError).reason).toBe(TxPoolRejection.CheckTx)
    expect((err as TxPoolError).checkTx?.code).toBe(TxCode.InsufficientFee)
    expect((err as Error).message).toBe('no')
    // Not asked for the duplicate; each submission decoded once.
    expect(asked).toEqual(['new', 'new'])
    expect(decoded).toEqual([raw, raw, refused])
  })

  it('gives a refusal by its own rules the accepting CheckTx answer', async () => {
    const { pool, state } = makePool()
    state.set(ADDRS[1]!, 3n, ETHER)
    const err = await pool.add(sign1559(K1, { nonce: 1n, gasLimit: 30_000n })).catch((e: unknown) => e)
    expect((err as TxPoolError).reason).toBe(TxPoolRejection.NonceTooLow)
    expect((err as TxPoolError).checkTx).toMatchObject({ code: 0, gasWanted: 30_000n })
  })

  it('reads each sender state once, not per transaction', async () => {
    const { pool, state } = makePool()
    for (let n = 0n; n < 20n; n++) await pool.add(sign1559(K0, { nonce: n }))
    expect(state.reads).toBe(1)
  })

  it('rejects in geth order: an underpriced tx that is also unfundable gets the underpriced message', async () => {
    const { pool, state } = makePool({ minGasPrice: GWEI })
    state.set(ADDRS[1]!, 0n, 0n)
    expect(await rejection(pool, sign1559(K1, { tip: 1n }))).toMatch(/^transaction underpriced/)
    expect(await rejection(pool, sign1559(K1, { tip: GWEI }))).toMatch(/^insufficient funds for gas \* price \+ value/)
  })
})
