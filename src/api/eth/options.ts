/** Options of the eth API: the `[json-rpc]` limits its handlers enforce or pass to the backend. */
import type { JsonRpcConfig } from '../../config/node-config.js'

export type EthApiOptions = Pick<
  JsonRpcConfig,
  'gasCap' | 'evmTimeout' | 'feeHistoryCap' | 'logsCap' | 'blockRangeCap' | 'txFeeCap' | 'allowInsecureUnlock' | 'clientIdentity'
>

/** Evmos' `[json-rpc]` defaults (`server/config/config.go`); 0 disables a cap. */
export const defaultEthApiOptions: EthApiOptions = {
  /** Gas of eth_call/eth_estimateGas, default and ceiling. */
  gasCap: 25_000_000n,
  /** eth_call wall-clock limit, ms. */
  evmTimeout: 5_000,
  /** Most blocks one eth_feeHistory covers (larger requests are clamped, as geth does). */
  feeHistoryCap: 100,
  /** Most logs one eth_getLogs returns. */
  logsCap: 10_000,
  /** Largest `toBlock - fromBlock` of eth_getLogs. */
  blockRangeCap: 10_000,
  /** Fee cap (ether) of transactions the node signs or relays; 0 = none. */
  txFeeCap: 1,
  /** personal_unlockAccount from non-loopback callers (geth --allow-insecure-unlock). */
  allowInsecureUnlock: false,
  /** What web3_clientVersion names. */
  clientIdentity: 'nodectl',
}
