import { it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { JsonRpcProvider, Wallet, parseEther } from 'ethers'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { startTestNode, waitFor } from '../helpers/dev-node.js'

it('dump', async () => {
  const t = await startTestNode()
  const url = t.addresses.cometRpc!.replace('tcp://', 'http://')
  const provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
  const [a, b] = devAccounts(2)
  const tx = await new Wallet(a!.privateKey, provider).sendTransaction({ to: b!.address, value: parseEther('1') })
  const r = await tx.wait()
  const call = async (method: string, params: Record<string, unknown> = {}) => (await (await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json())
  const out: Record<string, unknown> = { evmHash: tx.hash, height: r!.blockNumber }
  out.status = await call('status')
  out.tx_search = await call('tx_search', { query: `ethereum_tx.ethereumTxHash='${tx.hash}'` })
  out.block_search = await call('block_search', { query: `block.height=${r!.blockNumber}` })
  out.validators = await call('validators')
  out.block_results = await call('block_results', { height: String(r!.blockNumber) })
  out.commit = await call('commit')
  out.consensus_state = await call('consensus_state')
  out.net_info = await call('net_info')
  out.unconfirmed_txs = await call('unconfirmed_txs')
  out.bad = await call('tx_search', { query: "tm.event='Tx' OR x=1" })
  out.page = await call('tx_search', { query: "tx.height=1", page: '5' })
  writeFileSync('/tmp/scratch/dump.json', JSON.stringify(out, null, 1))
  provider.destroy()
  await t.destroy()
})
