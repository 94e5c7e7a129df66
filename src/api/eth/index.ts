/**
 * The web3, net, eth, txpool, miner and personal namespaces over an `EthBackend` and an
 * `AccountsBackend`. The node builds the tables once and hands them to the transport's Dispatcher with
 * the enabled namespaces:
 *   const tables = createEthApi(backend, config.jsonRpc, subs, filters, accounts)
 *   const dispatcher = new Dispatcher(tables, {namespaces: config.jsonRpc.api, ...}, log, renderEvmApiError)
 * Errors thrown by the handlers are rendered by the EVM surface's error table (api/evm-errors.ts).
 */
import type { MethodTable } from '../../rpc/method-table.js'
import { noAccounts, type AccountsBackend } from './accounts-backend.js'
import type { EthBackend } from './backend.js'
import { createEthBlockMethods } from './eth-blocks.js'
import { createEthChainMethods } from './eth-chain.js'
import { createEthConfigMethods } from './eth-config.js'
import { createEthExecuteMethods } from './eth-execute.js'
import { createEthFillMethods } from './eth-fill.js'
import { createEthFilterMethods } from './eth-filters.js'
import { createEthFeeMethods } from './eth-fees.js'
import { createEthLogMethods } from './eth-logs.js'
import { createEthPendingMethods } from './eth-pending.js'
import { createEthProofMethods } from './eth-proof.js'
import { createEthSigningMethods } from './eth-signing.js'
import { createEthSimulateMethods } from './eth-simulate.js'
import { createEthStateMethods } from './eth-state.js'
import { createEthSubscribeMethods, type SubscriptionService } from './eth-subscribe.js'
import { createEthTransactionMethods } from './eth-transactions.js'
import type { FilterSystem } from './filters.js'
import { createMinerMethods } from './miner.js'
import { createNetMethods } from './net.js'
import type { EthApiOptions } from './options.js'
import { createPersonalMethods } from './personal.js'
import { TransactionSender, type KeylessSender } from './transaction-signer.js'
import { createTxPoolMethods } from './txpool.js'
import { createWeb3Methods } from './web3.js'

export type { KeylessSender } from './transaction-signer.js'
export type { AccountSigner, AccountsBackend, KeyStoreWallet, RecoverableSignature } from './accounts-backend.js'
export { AccountError, accountErrors } from './account-errors.js'
export type { EthBackend, CallArgs, ExecutionOptions, HistoryRetention, LogQuery, Retention, SyncStatus } from './backend.js'
export type { AccessListResult, AccountProof, PoolContent } from './backend.js'
export type { BlockNumberOrTag, BlockSelector, BlockTag } from './block-params.js'
export type { LogFilter } from './log-filter.js'
export type { SubscriptionService } from './eth-subscribe.js'
export { defaultEthApiOptions, type EthApiOptions } from './options.js'
export { formatBlock, formatLog, formatReceipt, formatTransaction } from './format.js'
export { getLogs } from './eth-logs.js'
export type { EthBlockEvent, EthEvents, EthPendingTxEvent } from './events.js'
export { FilterSystem, defaultFilterOptions, type FilterOptions } from './filters.js'
export { SubscriptionManager, defaultSubscriptionOptions, type SubscriptionOptions } from './subscriptions.js'

/**
 * All tables of the web3, net, eth, txpool, miner and personal namespaces. `subscriptions` serves
 * eth_subscribe on WebSocket connections, `filters` the polling filters; without them those methods
 * answer -32000. `accounts` is the key store; without it eth_accounts is empty and nothing signs.
 * `keyless`: a dev chain's impersonated senders, which eth_sendTransaction serves without a key.
 */
export function createEthApi(
  backend: EthBackend,
  options: EthApiOptions,
  subscriptions?: SubscriptionService,
  filters?: FilterSystem,
  accounts: AccountsBackend = noAccounts,
  keyless?: KeylessSender,
): MethodTable[] {
  const sender = new TransactionSender(backend, accounts, { gasCap: options.gasCap, timeout: options.evmTimeout }, keyless)
  return [
    createWeb3Methods(backend, options.clientIdentity),
    createNetMethods(backend),
    createEthChainMethods(backend),
    createEthConfigMethods(backend),
    createEthStateMethods(backend),
    createEthBlockMethods(backend),
    createEthTransactionMethods(backend),
    createEthExecuteMethods(backend, options),
    createEthSimulateMethods(backend, options),
    createEthFeeMethods(backend, options),
    createEthLogMethods(backend, options),
    createEthSubscribeMethods(subscriptions),
    createEthFilterMethods(filters),
    createEthProofMethods(backend, options),
    createEthPendingMethods(backend),
    createEthFillMethods(backend, options),
    createEthSigningMethods(backend, accounts, sender, options),
    createTxPoolMethods(backend),
    createMinerMethods(backend),
    createPersonalMethods(accounts, sender, options),
  ]
}
