/**
 * The transaction part of the bad-input corpus: transactions eth_sendRawTransaction must refuse, each with
 * the error geth answers (its txpool `ValidateTransaction` and `validateTx`, and the RPC's own checks), as
 * data. test/e2e/bad-input-corpus.test.ts signs each with a dev account (or a key holding nothing), sends
 * it, and checks the error; the node must still commit afterwards. Add a case by appending a row.
 */
import type { TransactionRequest } from 'ethers'

/** One transaction the node must refuse. */
export interface TxCase {
  name: string
  /** What is signed; `raw` cases send their bytes as they are. */
  tx?: TransactionRequest
  raw?: string
  /** Signed by a key that holds nothing instead of a funded dev account. */
  unfunded?: boolean
  /** geth's error: code -32000 and this message (a pattern where geth's text has values we do not fix). */
  message: string | RegExp
  source: string
}

const FEES = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n } as const
const TO = '0x000000000000000000000000000000000000dEaD'
/** geth's txMaxSize (128 KiB), our `[mempool] max_tx_bytes` default. */
const MAX_TX_BYTES = 131_072
/** EIP-3860: twice the EIP-170 code size limit. */
const MAX_INIT_CODE = 49_152

export const TX_CASES: TxCase[] = [
  {
    name: 'bytes that are no transaction',
    raw: '0xdeadbeef',
    message: /^rlp: /,
    source: 'geth ethapi SendRawTransaction: UnmarshalBinary fails with the RLP decoder text',
  },
  {
    name: 'signed for another chain',
    tx: { type: 2, chainId: 1n, nonce: 0, gasLimit: 21_000n, to: TO, ...FEES },
    message: /chain id/,
    source: 'geth types.LatestSigner: ErrInvalidChainId',
  },
  {
    name: 'not replay-protected (no EIP-155 chain id)',
    tx: { type: 0, nonce: 0, gasLimit: 21_000n, gasPrice: 10n ** 10n, to: TO },
    message: 'only replay-protected (EIP-155) transactions allowed over RPC',
    source: 'geth ethapi SubmitTransaction: b.UnprotectedAllowed()',
  },
  {
    name: 'gas below the intrinsic gas',
    tx: { type: 2, chainId: 31337n, nonce: 0, gasLimit: 20_000n, to: TO, ...FEES },
    message: 'intrinsic gas too low: gas 20000, minimum needed 21000',
    source: 'geth txpool ValidateTransaction: core.ErrIntrinsicGas with gas and minimum',
  },
  {
    name: 'gas above the block gas limit',
    // A fee under the RPC's 1 ether cap, which geth checks first.
    tx: { type: 2, chainId: 31337n, nonce: 0, gasLimit: 10n ** 9n, to: TO, maxFeePerGas: 10n ** 8n, maxPriorityFeePerGas: 1n },
    message: 'exceeds block gas limit',
    source: 'geth txpool ValidateTransaction: ErrGasLimit',
  },
  {
    name: 'fee above the RPC fee cap (1 ether)',
    tx: { type: 2, chainId: 31337n, nonce: 0, gasLimit: 21_000n, to: TO, maxFeePerGas: 10n ** 15n, maxPriorityFeePerGas: 1n },
    message: 'tx fee (21.00 ether) exceeds the configured cap (1.00 ether)',
    source: 'geth ethapi checkTxFee',
  },
  {
    name: 'a sender that holds nothing',
    tx: { type: 2, chainId: 31337n, nonce: 0, gasLimit: 21_000n, to: TO, value: 1n, ...FEES },
    unfunded: true,
    message: /^insufficient funds for gas \* price \+ value/,
    source: 'geth txpool validateTx: core.ErrInsufficientFunds',
  },
  {
    name: 'larger than 128 KiB',
    tx: { type: 2, chainId: 31337n, nonce: 0, gasLimit: 5_000_000n, to: TO, data: `0x${'01'.repeat(MAX_TX_BYTES)}`, ...FEES },
    message: /^oversized data: transaction size \d+, limit 131072$/,
    source: 'geth txpool ValidateTransaction: ErrOversizedData with size and limit',
  },
  {
    name: 'init code above the EIP-3860 limit',
    tx: { type: 2, chainId: 31337n, nonce: 0, gasLimit: 15_000_000n, data: `0x${'00'.repeat(MAX_INIT_CODE + 1)}`, ...FEES },
    message: `max initcode size exceeded: code size ${MAX_INIT_CODE + 1}, limit ${MAX_INIT_CODE}`,
    source: 'geth txpool ValidateTransaction: core.ErrMaxInitCodeSizeExceeded',
  },
]
