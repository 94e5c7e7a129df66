/**
 * Builds the chain getlogs-range queries: Emitter contracts (target, busy, noise) and `--range-blocks`
 * blocks carrying the logs of {@link planRangeLogs}. A spawned node makes the blocks itself (empty
 * ones back to back); an Anvil or Hardhat target mines them on request (`anvil_mine`, `hardhat_mine`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Interface, toBeHex, type Wallet } from 'ethers'
import { getFees, getHeight, getNonce, getReceipts, sleep, waitForReceipt, type Receipt } from './chain.js'
import { planRangeLogs, type RangePlanOptions, type RangeRole } from './range-plan.js'
import type { RpcClient } from './rpc-client.js'
import { compileContracts } from '../helpers/solidity.js'
import { round } from './stats.js'

/** Noise contracts: "other addresses" the noise logs rotate over. */
export const NOISE_CONTRACTS = 8

/** The file of a prepared home that describes its range. */
export const RANGE_FILE = 'bench-range.json'

/** Gas of a ping: a base for the call, plus 2,000 per log (LOG2 with 32 data bytes is ~1,400). */
const pingGas = (logs: number): bigint => 60_000n + 2_000n * BigInt(logs)

/** What was built, as saved in {@link RANGE_FILE}. */
export interface RangeChain {
  plan: RangePlanOptions
  fromBlock: number
  toBlock: number
  target: string
  busy: string
  noise: string[]
  /** Logs of each role inside [fromBlock, toBlock], counted from the receipts. */
  targetLogs: number
  busyLogs: number
  noiseLogs: number
  /** Heights of the target logs. */
  targetHeights: number[]
  /** Blocks of the range holding noise logs. */
  noiseBlocks: number
  /** Seconds from the range's first block to its last, and the rate. */
  buildSeconds: number
  blocksPerSec: number
}

/** Makes the chain reach a height. */
export interface BlockDriver {
  reach(height: number): Promise<void>
}

/** A node that makes blocks by itself: wait for them, polling eth_blockNumber every 10 ms. */
export function waitingDriver(client: RpcClient): BlockDriver {
  let head = -1
  return {
    async reach(height) {
      while (head < height) {
        if (head >= 0) await sleep(10)
        head = await getHeight(client)
      }
    },
  }
}

/** A target that mines on request with `method` (`anvil_mine` or `hardhat_mine`: block count as hex). */
export function miningDriver(client: RpcClient, method: string): BlockDriver {
  return {
    async reach(height) {
      const head = await getHeight(client)
      if (head < height) await client.call(method, [`0x${(height - head).toString(16)}`])
    },
  }
}

/** The mining method the target answers, trying each by mining one block; undefined if none. */
export async function detectMineMethod(client: RpcClient): Promise<string | undefined> {
  for (const method of ['anvil_mine', 'hardhat_mine']) {
    try {
      await client.call(method, ['0x1'])
      return method
    } catch {
      // not this one
    }
  }
  return undefined
}

export function loadRangeChain(home: string): RangeChain | undefined {
  const path = join(home, RANGE_FILE)
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as RangeChain) : undefined
}

export function saveRangeChain(home: string, chain: RangeChain): void {
  writeFileSync(join(home, RANGE_FILE), JSON.stringify(chain, null, 2) + '\n')
}

/**
 * Deploys the emitters from account 0, then sends the planned pings as the chain passes their
 * offsets: target from account 0, busy from account 1, noise from accounts 2–9 in turn.
 */
export async function buildRangeChain(
  client: RpcClient,
  chainId: bigint,
  accounts: Wallet[],
  plan: RangePlanOptions,
  driver: BlockDriver,
): Promise<RangeChain> {
  const { Emitter } = compileContracts('Emitter.sol')
  const abi = new Interface(Emitter!.abi as never)
  const fees = await getFees(client)
  const senders = accounts
  if (senders.length < 3) throw new Error('getlogs-range needs 3 funded accounts')
  const nonces = await Promise.all(senders.map((w) => getNonce(client, w.address)))
  const sign = (s: number, tx: { to?: string; data: string; gasLimit: bigint }): Promise<string> =>
    senders[s]!.signTransaction({ type: 2, chainId, nonce: nonces[s]!++, ...fees, ...tx })

  const deployHashes: string[] = []
  for (let i = 0; i < 2 + NOISE_CONTRACTS; i++)
    deployHashes.push(await client.call<string>('eth_sendRawTransaction', [await sign(0, { data: Emitter!.bytecode, gasLimit: 500_000n })]))
  const deployed: string[] = []
  for (const h of deployHashes) {
    const r = await waitForReceipt(client, h)
    if (r.status !== '0x1' || !r.contractAddress) throw new Error('Emitter deployment failed')
    deployed.push(r.contractAddress)
  }
  const [target, busy, ...noise] = deployed as [string, string, ...string[]]

  const fromBlock = (await getHeight(client)) + 1
  const toBlock = fromBlock + plan.blocks - 1
  const started = performance.now()
  const sent: { hash: string; role: RangeRole }[] = []
  const lastOf = new Map<number, string>()
  let noiseSender = 0
  for (const e of planRangeLogs(plan)) {
    await driver.reach(fromBlock + e.offset - 1)
    const s = e.role === 'target' ? 0 : e.role === 'busy' ? 1 : 2 + (noiseSender++ % (senders.length - 2))
    const to = e.role === 'target' ? target : e.role === 'busy' ? busy : noise[e.contract]!
    const data = abi.encodeFunctionData('ping', [e.logs, toBeHex(e.offset, 32)])
    const hash = await client.call<string>('eth_sendRawTransaction', [await sign(s, { to, data, gasLimit: pingGas(e.logs) })])
    sent.push({ hash, role: e.role })
    lastOf.set(s, hash)
  }
  // Each sender's transactions commit in nonce order: its last receipt means all of them.
  for (const hash of lastOf.values()) await waitForReceipt(client, hash)
  await driver.reach(toBlock)
  const buildSeconds = (performance.now() - started) / 1000

  const receipts = await getReceipts(
    client,
    sent.map((s) => s.hash),
  )
  const roleOf = new Map(sent.map((s) => [s.hash, s.role]))
  const inRange = (r: Receipt | null): r is Receipt => r !== null && Number(r.blockNumber) >= fromBlock && Number(r.blockNumber) <= toBlock
  const count = (role: RangeRole): Receipt[] =>
    receipts.filter(inRange).filter((r) => roleOf.get(r.transactionHash) === role && r.status === '0x1')
  const logsOf = (rs: Receipt[]): number => rs.reduce((n, r) => n + r.logs.length, 0)
  const targetReceipts = count('target')
  return {
    plan,
    fromBlock,
    toBlock,
    target,
    busy,
    noise,
    targetLogs: logsOf(targetReceipts),
    busyLogs: logsOf(count('busy')),
    noiseLogs: logsOf(count('noise')),
    targetHeights: targetReceipts.map((r) => Number(r.blockNumber)),
    noiseBlocks: new Set(count('noise').map((r) => r.blockNumber)).size,
    buildSeconds: round(buildSeconds, 1),
    blocksPerSec: round(plan.blocks / buildSeconds, 1),
  }
}
