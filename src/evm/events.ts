/**
 * ABCI events of EVM execution, named as Evmos' `x/evm` names them (docs/decisions.md) so
 * `tx_search` and subscriptions find EVM transactions: per tx `ethereum_tx`, `ethereum`, `tx_log`
 * (one `txLog` attribute per log) and `message`; per block `block_bloom` and `fee_market`.
 * Every attribute is indexed.
 */
import type { AbciEvent } from '../abci/types.js'
import { bytesToHex, bytesToUpperHex } from '../primitives/hex.js'
import type { EvmLog } from './store/views.js'

/** Action of the `message` event (Evmos' MsgEthereumTx type URL). */
export const MSG_ETHEREUM_TX_ACTION = '/ethermint.evm.v1.MsgEthereumTx'

export interface TxEventInput {
  /** EVM (Keccak) hash. */
  hash: Uint8Array
  /** Consensus (SHA-256) hash. */
  cometHash: Uint8Array
  /** Index among the block's executed EVM transactions. */
  txIndex: number
  gasUsed: bigint
  from: Uint8Array
  /** undefined for a contract creation. */
  to: Uint8Array | undefined
  value: bigint
  type: number
  /** geth's VM error text when the transaction failed. */
  failed: string | undefined
  logs: readonly EvmLog[]
}

function event(type: string, attrs: [string, string][]): AbciEvent {
  return { type, attributes: attrs.map(([key, value]) => ({ key, value, index: true })) }
}

/** The JSON of a log in a `tx_log` attribute: geth's log fields, data as 0x hex. */
export function encodeTxLog(log: EvmLog): string {
  return JSON.stringify({
    address: bytesToHex(log.address),
    topics: log.topics.map(bytesToHex),
    data: bytesToHex(log.data),
    blockNumber: log.blockNumber,
    transactionHash: bytesToHex(log.transactionHash),
    transactionIndex: log.transactionIndex,
    blockHash: bytesToHex(log.blockHash),
    logIndex: log.logIndex,
    removed: false,
  })
}

/** The events of one executed EVM transaction. */
export function createTxEvents(tx: TxEventInput): AbciEvent[] {
  const sender = bytesToHex(tx.from)
  const recipient = tx.to ? bytesToHex(tx.to) : undefined
  const attrs: [string, string][] = [
    ['ethereumTxHash', bytesToHex(tx.hash)],
    ['txIndex', String(tx.txIndex)],
    ['txGasUsed', tx.gasUsed.toString()],
    ['txHash', bytesToUpperHex(tx.cometHash)],
  ]
  if (recipient) attrs.push(['recipient', recipient])
  attrs.push(['sender', sender], ['amount', tx.value.toString()], ['txType', String(tx.type)])
  if (tx.failed !== undefined) attrs.push(['ethereumTxFailed', tx.failed])
  const events = [event('ethereum_tx', attrs)]
  const ethereum: [string, string][] = [['sender', sender]]
  if (recipient) ethereum.push(['recipient', recipient])
  events.push(event('ethereum', ethereum))
  if (tx.logs.length > 0)
    events.push(
      event(
        'tx_log',
        tx.logs.map((l) => ['txLog', encodeTxLog(l)]),
      ),
    )
  events.push(
    event('message', [
      ['module', 'evm'],
      ['sender', sender],
      ['action', MSG_ETHEREUM_TX_ACTION],
    ]),
  )
  return events
}

/** FinalizeBlock events of a block: its bloom and the base fee it ran with. */
export function createBlockEvents(bloom: Uint8Array, baseFee: bigint): AbciEvent[] {
  return [event('block_bloom', [['bloom', bytesToHex(bloom)]]), event('fee_market', [['base_fee', baseFee.toString()]])]
}
