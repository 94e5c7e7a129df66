/**
 * `npm run bench`: the workloads of issue #2, one JSON line each. Starts a dev node (or targets
 * `--rpc URL`, so the same workload runs against Anvil or Hardhat side by side).
 *
 *   npm run bench                              # spawn `nodectl start --dev` on 127.0.0.1:18545
 *   npm run bench -- --rpc http://127.0.0.1:8545 --label anvil
 *   npm run bench -- --duration 5 --txs 2000   # shorter run
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { Interface, Wallet, keccak256 } from 'ethers'
import { devAccounts } from '../keystore/dev-accounts.js'
import { runLoad, percentiles, round } from './load.js'
import { RpcClient } from './rpc-client.js'
import { compileContracts } from './solidity.js'


const { values: args } = parseArgs({
  options: {
    rpc: { type: 'string' },
    label: { type: 'string', default: 'nodectl' },
    port: { type: 'string', default: '18545' },
    duration: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    txs: { type: 'string', default: '5000' },
    senders: { type: 'string', default: '10' },
  },
})

const durationMs = Number(args.duration) * 1000
const concurrency = Number(args.concurrency)
const label = args.label!

function emit(workload: string, result: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ target: label, workload, ...result }) + '\n')
}

async function waitForRpc(client: RpcClient, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    try {
      await client.call('eth_chainId')
      return
    } catch (err) {
      if (performance.now() > deadline) throw new Error(`node did not answer within ${timeoutMs} ms: ${String(err)}`)
      await new Promise((r) => setTimeout(r, 2))
    }
  }
}

function spawnDevNode(port: number): { child: ChildProcess; home: string; url: string } {
  const home = mkdtempSync(join(tmpdir(), 'nodectl-bench-'))
  const bin = resolve(import.meta.dirname, '../../bin/run.js')
  const child = spawn(process.execPath, [bin, 'start', '--dev', '--home', home, '--json-rpc.address', `127.0.0.1:${port}`, '--json-rpc.ws-address', `127.0.0.1:${port + 1}`, '--rpc.laddr', `tcp://127.0.0.1:${port + 2}`, '--log_level', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] })
  return { child, home, url: `http://127.0.0.1:${port}` }
}

interface Receipt {
  status: string
  blockNumber: string
  contractAddress: string | null
}

function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Math.round(Number(m[1]) / 1024) : undefined
  } catch {
    return undefined
  }
}

async function waitForReceipt(client: RpcClient, hash: string, timeoutMs = 120_000): Promise<Receipt> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const receipt = await client.call<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (receipt) return receipt
    if (performance.now() > deadline) throw new Error(`no receipt for ${hash}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

async function sendAndWait(client: RpcClient, raw: string): Promise<Receipt> {
  const hash = await client.call<string>('eth_sendRawTransaction', [raw])
  return waitForReceipt(client, hash)
}

async function main(): Promise<void> {
  let node: ReturnType<typeof spawnDevNode> | undefined
  let url = args.rpc
  const spawnedAt = performance.now()
  if (!url) {
    node = spawnDevNode(Number(args.port))
    url = node.url
  }
  const client = new RpcClient(url, concurrency * 2)
  try {
    await waitForRpc(client, 30_000)
    if (node) emit('startup', { msToFirstAnswer: round(performance.now() - spawnedAt, 1) })

    const chainId = BigInt(await client.call<string>('eth_chainId'))
    const wallets = devAccounts(Number(args.senders)).map((a) => new Wallet(a.privateKey))
    const deployer = wallets[0]!

    // Reads: eth_blockNumber / eth_getBalance / eth_chainId, round-robin.
    const reads = await runLoad(
      (i) => (i % 3 === 0 ? client.call('eth_blockNumber') : i % 3 === 1 ? client.call('eth_getBalance', [deployer.address, 'latest']) : client.call('eth_chainId')),
      concurrency,
      durationMs,
    )
    emit('reads', { ...reads })

    // Deploy the ERC-20 and give every sender a balance.
    const { Token } = compileContracts('Token.sol')
    const token = new Interface(Token!.abi as never)
    const feeData = async (): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> => {
      const block = await client.call<{ baseFeePerGas?: string }>('eth_getBlockByNumber', ['latest', false])
      const base = BigInt(block.baseFeePerGas ?? '0x3b9aca00')
      const tip = 1_000_000_000n
      return { maxFeePerGas: base * 4n + tip, maxPriorityFeePerGas: tip }
    }
    let fees = await feeData()
    const nonces = await Promise.all(wallets.map((w) => client.call<string>('eth_getTransactionCount', [w.address, 'pending']).then(BigInt)))
    const deployTx = await deployer.signTransaction({ type: 2, chainId, nonce: Number(nonces[0]!++), gasLimit: 2_000_000n, ...fees, data: Token!.bytecode + token.encodeDeploy([10n ** 30n]).slice(2) })
    const deployReceipt = await sendAndWait(client, deployTx)
    if (deployReceipt.status !== '0x1' || !deployReceipt.contractAddress) throw new Error('token deployment failed')
    const tokenAddress = deployReceipt.contractAddress
    const fundTxs: string[] = []
    for (const w of wallets.slice(1)) {
      fundTxs.push(await deployer.signTransaction({ type: 2, chainId, nonce: Number(nonces[0]!++), gasLimit: 100_000n, ...fees, to: tokenAddress, data: token.encodeFunctionData('transfer', [w.address, 10n ** 27n]) }))
    }
    for (const raw of fundTxs) await client.call('eth_sendRawTransaction', [raw])
    for (const raw of fundTxs) await waitForReceipt(client, keccak256(raw))

    // eth_call: ERC-20 balanceOf.
    const balanceOfData = token.encodeFunctionData('balanceOf', [deployer.address])
    const calls = await runLoad(() => client.call('eth_call', [{ to: tokenAddress, data: balanceOfData }, 'latest']), concurrency, durationMs)
    emit('eth_call', { ...calls })

    // Committed ERC-20 transfers: pre-signed, from `senders` accounts, timed from first send to last receipt.
    fees = await feeData()
    const total = Number(args.txs)
    const perSender = Math.ceil(total / wallets.length)
    const recipient = '0x000000000000000000000000000000000000dEaD'
    const transferData = token.encodeFunctionData('transfer', [recipient, 1n])
    const signed: string[][] = await Promise.all(
      wallets.map(async (w, s) => {
        const out: string[] = []
        for (let i = 0; i < perSender && s * perSender + i < total; i++) {
          out.push(await w.signTransaction({ type: 2, chainId, nonce: Number(nonces[s]!++), gasLimit: 80_000n, ...fees, to: tokenAddress, data: transferData }))
        }
        return out
      }),
    )
    const hashes: string[][] = signed.map(() => [])
    const startBlock = Number(await client.call<string>('eth_blockNumber'))
    const t0 = performance.now()
    let sendErrors = 0
    await Promise.all(
      signed.map(async (txs, s) => {
        for (const raw of txs) {
          try {
            hashes[s]!.push(await client.call<string>('eth_sendRawTransaction', [raw]))
          } catch {
            sendErrors++
          }
        }
      }),
    )
    const sentMs = performance.now() - t0
    await Promise.all(hashes.map((hs) => (hs.length ? waitForReceipt(client, hs[hs.length - 1]!) : undefined)))
    const elapsed = (performance.now() - t0) / 1000
    const endBlock = Number(await client.call<string>('eth_blockNumber'))
    let failed = sendErrors
    const all = hashes.flat()
    for (let i = 0; i < all.length; i += 200) {
      const receipts = await Promise.all(all.slice(i, i + 200).map((h) => client.call<{ status: string } | null>('eth_getTransactionReceipt', [h])))
      failed += receipts.filter((r) => !r || r.status !== '0x1').length
    }
    emit('erc20_transfers', { txs: all.length, failed, seconds: round(elapsed), txPerSec: Math.round(all.length / elapsed), sendSeconds: round(sentMs / 1000), blocks: endBlock - startBlock })

    // eth_getLogs over every block of the run, selective by address.
    const head = await client.call<string>('eth_blockNumber')
    const latencies: number[] = []
    let count = 0
    for (let i = 0; i < 20; i++) {
      const t = performance.now()
      const logs = await client.call<unknown[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: head, address: tokenAddress }])
      latencies.push(performance.now() - t)
      count = logs.length
    }
    emit('eth_getLogs', { logs: count, blocks: Number(head) + 1, ...percentiles(latencies) })
    if (node) emit('memory', { rssMb: rssMb(node.child.pid) })
  } finally {
    client.close()
    if (node) {
      node.child.kill('SIGTERM')
      await new Promise((r) => node!.child.once('exit', r))
      rmSync(node.home, { recursive: true, force: true })
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
