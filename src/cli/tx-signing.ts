/**
 * What the transaction commands need to send an EVM transaction from the command line: the sender's
 * key (`--from`: hex, or a file holding it), an ed25519 public key argument (base64 or hex), and
 * signing + sending + waiting for the receipt over the node's HTTP JSON-RPC.
 */
import { readFile } from 'node:fs/promises'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { getCommon } from '../chain/evm/common.js'
import { isValidPrivateKey, privateKeyToAddress } from '../crypto/index.js'
import { base64ToBytes, bytesToHex, hexToBytes } from '../primitives/hex.js'
import type { HttpRpcClient } from '../rpc/client/index.js'

/** How often a command polls for its receipt (ms). */
export const RECEIPT_POLL_MS = 200

/** A 32-byte secp256k1 private key from `--from`: 64 hex digits (0x optional), or a file containing them. */
export async function loadSenderKey(input: string): Promise<Uint8Array> {
  const hex = /^(0x)?[0-9a-fA-F]{64}$/.test(input.trim()) ? input.trim() : await readKeyFile(input)
  const key = hexToBytes(hex.startsWith('0x') ? hex : `0x${hex}`)
  if (!isValidPrivateKey(key)) throw new Error('invalid --from: not a valid secp256k1 private key')
  return key
}

async function readKeyFile(path: string): Promise<string> {
  let text: string
  try {
    text = (await readFile(path, 'utf8')).trim()
  } catch {
    throw new Error(`invalid --from "${path}": want a private key (64 hex digits) or a file holding one`)
  }
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text)) throw new Error(`invalid --from "${path}": the file does not hold a private key (64 hex digits)`)
  return text
}

/** A 32-byte ed25519 public key given as hex (0x optional) or base64. */
export function parseEd25519PubKey(input: string): Uint8Array {
  const s = input.trim()
  let key: Uint8Array | undefined
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(s)) key = hexToBytes(s.startsWith('0x') ? s : `0x${s}`)
  else if (/^[A-Za-z0-9+/]{43}=?$/.test(s)) key = base64ToBytes(s)
  if (!key || key.length !== 32) throw new Error(`invalid --pubkey "${input}": want a 32-byte ed25519 public key in base64 or hex`)
  return key
}

/** A mined transaction. */
export interface SentTx {
  hash: `0x${string}`
  from: `0x${string}`
  blockNumber: number
  status: 0 | 1
  gasUsed: bigint
}

/**
 * Signs an EIP-1559 call of `to` with `data` from `key` (nonce from the pool, gas from eth_estimateGas
 * — a call that would revert fails here with the node's reason), sends it and waits for its receipt.
 */
export async function sendAndWait(client: HttpRpcClient, key: Uint8Array, to: Uint8Array, data: Uint8Array, timeoutMs: number): Promise<SentTx> {
  const from = bytesToHex(privateKeyToAddress(key)) as `0x${string}`
  const call = { from, to: bytesToHex(to), data: bytesToHex(data) }
  const [chainId, nonce, gas, gasPrice] = await Promise.all([
    client.call<string>('eth_chainId'),
    client.call<string>('eth_getTransactionCount', [from, 'pending']),
    client.call<string>('eth_estimateGas', [call]),
    client.call<string>('eth_gasPrice'),
  ])
  const common = getCommon(BigInt(chainId))
  // fee cap: twice the suggested price leaves room for base fee rises while the tx waits
  const tx = createFeeMarket1559Tx(
    { chainId: BigInt(chainId), nonce: BigInt(nonce), gasLimit: BigInt(gas), maxFeePerGas: BigInt(gasPrice) * 2n, maxPriorityFeePerGas: 0n, to, data },
    { common },
  ).sign(key)
  const hash = await client.call<`0x${string}`>('eth_sendRawTransaction', [bytesToHex(tx.serialize())])
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const r = await client.call<{ blockNumber: string; status: string; gasUsed: string } | null>('eth_getTransactionReceipt', [hash])
    if (r) return { hash, from, blockNumber: Number(r.blockNumber), status: r.status === '0x1' ? 1 : 0, gasUsed: BigInt(r.gasUsed) }
    if (Date.now() > deadline) throw new Error(`transaction ${hash} not mined within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS))
  }
}
