/** What every workload gets: the options, the target, the funded accounts, and the shared setup. */
import { Wallet } from 'ethers'
import { devAccounts } from '../../../src/keystore/dev-accounts.js'
import type { BenchOptions } from '../options.js'
import type { RpcClient } from '../rpc-client.js'
import { holderWord } from './eth-call.js'
import { deployToken, type TokenSetup } from './token.js'
import { erc20TransferCall, sendBatch, type TransferBatch } from './transfer-batch.js'

/** Prints one JSON line: `{ target, workload, ...result }`. */
export type Emit = (workload: string, result: Record<string, unknown>) => void

/** A chain to send to: its EVM JSON-RPC client and the dev accounts funded on it. */
export interface ChainTarget {
  client: RpcClient
  chainId: bigint
  /** The 10 funded dev accounts of the Hardhat/Anvil mnemonic, in path order. */
  accounts: Wallet[]
}

export interface BenchContext extends ChainTarget {
  options: BenchOptions
  emit: Emit
  /** EVM JSON-RPC WebSocket URL, if known. */
  wsUrl: string | undefined
  /** Consensus RPC URL; undefined when the target has none (Anvil, Hardhat). */
  cometUrl: string | undefined
  /** The ERC-20 deployed and spread over the senders, once (call, transfers, logs, tx-search). */
  token(): Promise<TokenSetup>
  /** The `--txs` committed ERC-20 transfers, sent once (transfers, logs, tx-search). */
  transferBatch(): Promise<TransferBatch>
  /** The 32-byte ABI word of the holder whose balance the `call` workload's `i`-th eth_call reads. */
  holderWord(i: number): string
}

/** What a chain prepared before the bench (`--big-state`) puts in place of the defaults, given the context. */
export type ContextOverrides = (ctx: BenchContext) => Partial<Pick<BenchContext, 'token' | 'transferBatch' | 'holderWord'>>

/** The funded dev accounts as signers. */
export function devWallets(): Wallet[] {
  return devAccounts().map((a) => new Wallet(a.privateKey))
}

/** `fn` run on first call only; later calls share its promise. */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined
  return () => (promise ??= fn())
}

export async function createContext(
  options: BenchOptions,
  client: RpcClient,
  emit: Emit,
  urls: { wsUrl: string | undefined; cometUrl: string | undefined },
  overrides: ContextOverrides = () => ({}),
): Promise<BenchContext> {
  const chainId = BigInt(await client.call<string>('eth_chainId'))
  const ctx: BenchContext = {
    options,
    client,
    chainId,
    accounts: devWallets(),
    emit,
    ...urls,
    token: once(() => deployToken(ctx)),
    transferBatch: once(async () => sendBatch(ctx, erc20TransferCall(await ctx.token()))),
    holderWord,
  }
  return Object.assign(ctx, overrides(ctx))
}
