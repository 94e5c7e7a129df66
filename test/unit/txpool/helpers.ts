/**
 * Test helpers of the transaction pool: dev keys of the `test test … junk` mnemonic, real signed
 * transactions for chain id 31337, an in-memory state, the application's CheckTx rules and a pool
 * built over them.
 */
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common'
import { getCommon } from '../../../src/evm/common.js'
import { decodeRawTx, type DecodedTx } from '../../../src/evm/txs/tx.js'
import { RLP } from '@ethereumjs/rlp'
import { keccak256, privateKeyToAddress, signHash } from '../../../src/crypto/index.js'
import { bigintToBytes, bytesToHex, concatBytes, hexToBytes } from '../../../src/primitives/hex.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { TxPool } from '../../../src/txpool/tx-pool.js'
import { checkTransaction, type AdmissionRules } from '../../../src/evm/txs/tx-admission.js'
import { defaultTxPoolOptions, type TxPoolOptions } from '../../../src/txpool/options.js'
import type { TxPoolMetrics } from '../../../src/txpool/pool-metrics.js'

export const CHAIN_ID = 31337n
export const common = getCommon(CHAIN_ID)
export const GWEI = 10n ** 9n
export const ETHER = 10n ** 18n

/** Dev accounts 0..2 of `test test test test test test test test test test test junk`. */
export const KEYS = [
  hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'),
  hexToBytes('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'),
  hexToBytes('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3d3aa5d5ace5bb32'),
]
/** Lower-case addresses of KEYS. */
export const ADDRS = KEYS.map((k) => bytesToHex(privateKeyToAddress(k)))
export const RECIPIENT = '0x90f79bf6eb2c4f870365e785982e1f101e93b906'

export interface TxFields {
  nonce?: bigint
  gasLimit?: bigint
  to?: string | null
  value?: bigint
  data?: Uint8Array
}

const toBytes = (to: string | null | undefined): Uint8Array | undefined => (to === null ? undefined : hexToBytes(to ?? RECIPIENT))

/** An EIP-1559 transaction; fees default to tip 1 gwei, cap 2 gwei. */
export function sign1559(key: Uint8Array, f: TxFields & { tip?: bigint; feeCap?: bigint } = {}): Uint8Array {
  return createFeeMarket1559Tx(
    {
      chainId: CHAIN_ID,
      nonce: f.nonce ?? 0n,
      maxPriorityFeePerGas: f.tip ?? GWEI,
      maxFeePerGas: f.feeCap ?? 2n * GWEI,
      gasLimit: f.gasLimit ?? 21000n,
      to: toBytes(f.to),
      value: f.value ?? 0n,
      data: f.data,
    },
    { common, allowUnlimitedInitCodeSize: true },
  )
    .sign(key)
    .serialize()
}

/** An EIP-155 legacy transaction; gas price defaults to 2 gwei. */
export function signLegacy(key: Uint8Array, f: TxFields & { gasPrice?: bigint } = {}): Uint8Array {
  return createLegacyTx(
    {
      nonce: f.nonce ?? 0n,
      gasPrice: f.gasPrice ?? 2n * GWEI,
      gasLimit: f.gasLimit ?? 21000n,
      to: toBytes(f.to),
      value: f.value ?? 0n,
      data: f.data,
    },
    { common },
  )
    .sign(key)
    .serialize()
}

/** A pre-EIP-155 legacy transaction (signed under Homestead rules: no chain id in v). */
export function signUnprotected(key: Uint8Array, f: TxFields & { gasPrice?: bigint } = {}): Uint8Array {
  const homestead = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Homestead })
  return createLegacyTx(
    { nonce: f.nonce ?? 0n, gasPrice: f.gasPrice ?? 2n * GWEI, gasLimit: f.gasLimit ?? 21000n, to: toBytes(f.to), value: f.value ?? 0n },
    { common: homestead },
  )
    .sign(key)
    .serialize()
}

/** An EIP-2930 transaction with an access list. */
export function sign2930(
  key: Uint8Array,
  f: TxFields & { gasPrice?: bigint; accessList?: { address: string; storageKeys: string[] }[] } = {},
): Uint8Array {
  return createAccessList2930Tx(
    {
      chainId: CHAIN_ID,
      nonce: f.nonce ?? 0n,
      gasPrice: f.gasPrice ?? 2n * GWEI,
      gasLimit: f.gasLimit ?? 21000n,
      to: toBytes(f.to),
      value: f.value ?? 0n,
      data: f.data,
      accessList: (f.accessList ?? []).map((e) => [hexToBytes(e.address), e.storageKeys.map(hexToBytes)] as [Uint8Array, Uint8Array[]]),
    },
    { common },
  )
    .sign(key)
    .serialize()
}

/**
 * An EIP-1559 transaction whose tip is above its fee cap, which ethereumjs will not build: RLP-encoded
 * and signed by hand (EIP-1559 signing hash: keccak(0x02 ‖ rlp(fields))).
 */
export function sign1559TipAboveCap(key: Uint8Array, tip: bigint, feeCap: bigint): Uint8Array {
  const fields = [
    bigintToBytes(CHAIN_ID),
    new Uint8Array(),
    bigintToBytes(tip),
    bigintToBytes(feeCap),
    bigintToBytes(21000n),
    hexToBytes(RECIPIENT),
    new Uint8Array(),
    new Uint8Array(),
    [],
  ]
  const { r, s, recovery } = signHash(keccak256(concatBytes(new Uint8Array([2]), RLP.encode(fields))), key)
  const strip = (b: Uint8Array): Uint8Array => b.subarray(b.findIndex((x) => x !== 0))
  return concatBytes(
    new Uint8Array([2]),
    RLP.encode([...fields, recovery === 0 ? new Uint8Array() : new Uint8Array([1]), strip(r), strip(s)]),
  )
}

/** Many EIP-1559 transactions quickly: signed through crypto/ (native libsecp256k1 when present). */
export function sign1559Fast(key: Uint8Array, nonce: bigint, tip = GWEI, feeCap = 2n * GWEI): Uint8Array {
  const tx = createFeeMarket1559Tx(
    { chainId: CHAIN_ID, nonce, maxPriorityFeePerGas: tip, maxFeePerGas: feeCap, gasLimit: 21000n, to: RECIPIENT },
    { common },
  )
  const { r, s, recovery } = signHash(tx.getHashedMessageToSign(), key)
  return tx.addSignature(BigInt(recovery), r, s).serialize()
}

export function decode(raw: Uint8Array): DecodedTx {
  return decodeRawTx(raw, common)
}

/** In-memory latest state: nonce and balance per lower-case address, zeros when absent. */
export class FakeState {
  readonly accounts = new Map<string, { nonce: bigint; balance: bigint }>()
  reads = 0

  set(address: string, nonce: bigint, balance: bigint): this {
    this.accounts.set(address.toLowerCase(), { nonce, balance })
    return this
  }

  async getAccount(address: string): Promise<{ nonce: bigint; balance: bigint }> {
    this.reads++
    return this.accounts.get(address) ?? { nonce: 0n, balance: 0n }
  }
}

export interface TestPool {
  pool: TxPool
  state: FakeState
  /** The rules the application's CheckTx applies; change them freely. */
  rules: AdmissionRules
  /** The next base fee the pool sees; change it freely. */
  fees: { baseFee: bigint }
}

/**
 * A pool over a FakeState in which the three dev accounts hold 1000 ether at nonce 0; base fee 0.
 * CheckTx applies the application's rules (`rules`, from the pool's options) to `decodeFn`'s result.
 */
export function makePool(
  options: Partial<TxPoolOptions> = {},
  decodeFn: (raw: Uint8Array) => DecodedTx = decode,
  rules: Partial<AdmissionRules> = {},
  metrics?: TxPoolMetrics,
): TestPool {
  const state = new FakeState()
  for (const a of ADDRS) state.set(a, 0n, 1000n * ETHER)
  const fees = { baseFee: 0n }
  const opts = { ...defaultTxPoolOptions, ...options }
  const checkRules: AdmissionRules = {
    maxTxBytes: opts.maxTxSize,
    gasLimit: opts.blockGasLimit,
    minGasPrice: opts.minGasPrice,
    allowUnprotectedTxs: false,
    ...rules,
  }
  const checkTx = async (raw: Uint8Array) => {
    let tx: DecodedTx | Error
    try {
      tx = decodeFn(raw)
    } catch (err) {
      tx = err as Error
    }
    return checkTransaction(raw, tx, checkRules)
  }
  const pool = new TxPool({
    decode: decodeFn,
    app: { checkTx },
    state,
    nextBaseFee: () => fees.baseFee,
    options: opts,
    logger: silentLogger,
    ...(metrics ? { metrics } : {}),
  })
  return { pool, state, fees, rules: checkRules }
}

/** The error message `add` rejects with. */
export async function rejection(pool: TxPool, raw: Uint8Array): Promise<string> {
  try {
    await pool.add(raw)
  } catch (err) {
    return (err as Error).message
  }
  throw new Error('transaction was accepted')
}

export const hashOf = (raw: Uint8Array): string => decode(raw).hashHex
