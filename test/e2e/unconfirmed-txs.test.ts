/**
 * What the consensus RPC calls unconfirmed (issue 30, broken 4): every transaction the pool holds,
 * pending and queued, so `num_unconfirmed_txs` and `unconfirmed_txs` count and measure the same set.
 * A transaction queued behind a nonce gap is unconfirmed too: it passed CheckTx and waits for a block,
 * as every transaction in CometBFT's mempool does. Checked over plain HTTP and through
 * `nodectl query unconfirmed`, against a real dev node.
 */
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import QueryUnconfirmed from '../../src/commands/query/unconfirmed.js'
import type { ReceiptJson } from '../../src/api/eth/format.js'
import { keccak256 } from '../../src/crypto/index.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToHex, hexToBytes } from '../../src/primitives/hex.js'
import { jsonOf, runCli } from '../helpers/cli.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'

const [A, B] = devAccounts(2)
const CHAIN_ID = 31337n
/** Fee cap and tip high enough for any base fee of a fresh dev chain (wei). */
const FEE = 10n ** 10n

interface UnconfirmedJson {
  n_txs: string
  total: string
  total_bytes: string
  txs: string[] | null
}

describe('unconfirmed transactions with one queued behind a nonce gap', () => {
  let t: TestNode
  let comet: string
  const wallet = new Wallet(A!.privateKey)

  const sign = (nonce: bigint): Promise<string> =>
    wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: Number(nonce),
      gasLimit: 21_000n,
      maxFeePerGas: FEE,
      maxPriorityFeePerGas: FEE,
      to: B!.address,
      value: 1n,
    })
  const send = async (raw: string): Promise<string> => {
    const reply = await rpc<string>(t.url, 'eth_sendRawTransaction', [raw])
    if (reply.error) throw new Error(reply.error.message)
    return reply.result!
  }
  const get = async (path: string): Promise<UnconfirmedJson> =>
    ((await (await fetch(`${comet}${path}`)).json()) as { result: UnconfirmedJson }).result

  beforeAll(async () => {
    t = await startTestNode()
    comet = t.addresses.cometRpc!.replace('tcp://', 'http://')
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('counts it in n_txs, total and total_bytes alike, and lists it; filling the gap empties the pool', async () => {
    const nonce = BigInt((await rpc<string>(t.url, 'eth_getTransactionCount', [A!.address, 'pending'])).result!)
    const queued = await sign(nonce + 1n)
    await send(queued)
    const bytes = String(hexToBytes(queued).length)
    const base64 = Buffer.from(hexToBytes(queued)).toString('base64')
    expect((await rpc<{ queued: string }>(t.url, 'txpool_status')).result).toMatchObject({ pending: '0x0', queued: '0x1' })

    expect(await get('/num_unconfirmed_txs')).toEqual({ n_txs: '1', total: '1', total_bytes: bytes, txs: null })
    expect(await get('/unconfirmed_txs')).toEqual({ n_txs: '1', total: '1', total_bytes: bytes, txs: [base64] })
    expect(await get('/unconfirmed_txs?limit=1')).toEqual({ n_txs: '1', total: '1', total_bytes: bytes, txs: [base64] })

    const rpcFlag = ['--rpc', comet]
    expect(jsonOf(await runCli(QueryUnconfirmed, [...rpcFlag, '--json']))).toEqual({
      n_txs: '1',
      total: '1',
      total_bytes: bytes,
      txs: [base64],
    })
    const human = (await runCli(QueryUnconfirmed, rpcFlag)).stdout.join('\n')
    expect(human).toContain(`1 unconfirmed transaction(s), ${bytes} bytes; showing 1`)
    expect(human).toContain(bytesToHex(keccak256(hexToBytes(queued))))

    // the gap filled, both are mined and leave the pool
    await send(await sign(nonce))
    const mined = await waitForBlock(
      t,
      async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [bytesToHex(keccak256(hexToBytes(queued)))])).result,
      20_000,
      'the queued transaction mined',
    )
    expect(mined.status).toBe('0x1')
    expect(await get('/num_unconfirmed_txs')).toEqual({ n_txs: '0', total: '0', total_bytes: '0', txs: null })
  })
})
