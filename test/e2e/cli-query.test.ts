/**
 * The `query` and `filter` client commands, run in-process against a real dev node: their --json
 * output is the node's answer, the human output is a table, and failures are one line with a
 * non-zero exit (`cannot reach node at URL`, the node's JSON-RPC error with its code).
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { RpcBlock, RpcFeeHistory, RpcLog, RpcReceipt } from '../../src/cli/eth-types.js'
import QueryBalance, { type BalanceResult } from '../../src/commands/query/balance.js'
import QueryBlock from '../../src/commands/query/block.js'
import QueryCode, { type CodeResult } from '../../src/commands/query/code.js'
import QueryFeeHistory from '../../src/commands/query/fee-history.js'
import QueryGasPrice, { type GasPriceResult } from '../../src/commands/query/gas-price.js'
import QueryLogs from '../../src/commands/query/logs.js'
import QueryNonce, { type NonceResult } from '../../src/commands/query/nonce.js'
import QueryReceipt from '../../src/commands/query/receipt.js'
import QueryStorage, { type StorageResult } from '../../src/commands/query/storage.js'
import QueryTx from '../../src/commands/query/tx.js'
import QueryTxpool, { type TxpoolResult } from '../../src/commands/query/txpool.js'
import FilterChanges from '../../src/commands/filter/changes.js'
import FilterLogs from '../../src/commands/filter/logs.js'
import FilterNewBlocks from '../../src/commands/filter/new-blocks.js'
import FilterNewLogs, { type NewFilterResult } from '../../src/commands/filter/new-logs.js'
import FilterNewPending from '../../src/commands/filter/new-pending.js'
import FilterUninstall from '../../src/commands/filter/uninstall.js'
import FilterWatch from '../../src/commands/filter/watch.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import { jsonOf, nextAnswer, runCli, runCliOnTerminal, withStdoutTerminal } from '../helpers/cli.js'

const [A0] = devAccounts(1)

describe('nodectl query / filter against a dev node', () => {
  let t: TestNode
  let node: string[]
  let provider: JsonRpcProvider
  let store: Contract
  let storeAddress: string
  let setTx: string
  const { Store } = compileContracts('Store.sol')

  beforeAll(async () => {
    t = await startTestNode()
    node = ['--node', t.url]
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    const deployed = await new ContractFactory(Store!.abi as never, Store!.bytecode, new Wallet(A0!.privateKey, provider)).deploy(7n)
    await deployed.waitForDeployment()
    store = deployed as unknown as Contract
    storeAddress = (await store.getAddress()).toLowerCase()
    const tx = await store.getFunction('set')(42n, 'hello')
    await tx.wait()
    setTx = tx.hash
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it("query block latest --json prints the node's block; the table shows its number", async () => {
    const run = await runCli(QueryBlock, ['latest', ...node, '--json'])
    expect(run.error).toBeUndefined()
    const block = jsonOf<RpcBlock>(run)
    expect(block.hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(run.result).toEqual(block)
    const byHash = await runCli(QueryBlock, [block.hash, ...node, '--full', '--json'])
    expect(jsonOf<RpcBlock>(byHash).number).toBe(block.number)
    const human = await runCliOnTerminal(QueryBlock, [String(Number(block.number)), ...node])
    expect(human.stdout.join('\n')).toContain(block.hash)
    expect(human.stdout.join('\n')).toMatch(/number\s*│\s*\d+/)
  })

  it('query tx and receipt show the mined transaction and its log', async () => {
    const tx = jsonOf(await runCli(QueryTx, [setTx, ...node, '--json']))
    expect(tx).toMatchObject({ hash: setTx, from: A0!.address.toLowerCase(), to: storeAddress })
    const receipt = jsonOf<RpcReceipt>(await runCli(QueryReceipt, [setTx, ...node, '--json']))
    expect(receipt).toMatchObject({ transactionHash: setTx, status: '0x1' })
    expect(receipt.logs).toHaveLength(1)
    const human = await runCli(QueryReceipt, [setTx, ...node])
    expect(human.stdout.join('\n')).toContain('success (1)')
  })

  it('query balance, nonce, code and storage read the state', async () => {
    const balance = jsonOf<BalanceResult>(await runCli(QueryBalance, [A0!.address, ...node, '--json']))
    expect(BigInt(balance.wei)).toBeGreaterThan(0n)
    expect(balance.ether).toMatch(/^9999\.\d+$/)
    const atGenesis = jsonOf<BalanceResult>(await runCli(QueryBalance, [A0!.address, ...node, '--block', '0', '--json']))
    expect(atGenesis.ether).toBe('10000')
    expect(jsonOf<NonceResult>(await runCli(QueryNonce, [A0!.address, ...node, '--json'])).nonce).toBe(2)
    const code = jsonOf<CodeResult>(await runCli(QueryCode, [storeAddress, ...node, '--json']))
    expect(code.size).toBeGreaterThan(0)
    const slot0 = jsonOf<StorageResult>(await runCli(QueryStorage, [storeAddress, '0', ...node, '--json']))
    expect(BigInt(slot0.value)).toBe(42n)
  })

  it('takes a key-store name wherever an address goes: a --dev home names its accounts dev0…dev9', async () => {
    await t.node.components.accounts.whenDevKeysSaved()
    const home = ['--home', t.home]
    const byName = jsonOf<BalanceResult>(await runCli(QueryBalance, ['dev0', ...node, ...home, '--json']))
    expect(byName.address).toBe(A0!.address)
    expect(byName.wei).toBe(jsonOf<BalanceResult>(await runCli(QueryBalance, [A0!.address, ...node, '--json'])).wei)
    expect(jsonOf<NonceResult>(await runCli(QueryNonce, ['dev0', ...node, ...home, '--json'])).nonce).toBe(2)
    const unknown = await runCli(QueryBalance, ['nobody', ...node, ...home])
    expect(unknown.exitCode).toBe(2)
    expect(unknown.error?.message).toBe(
      `invalid address "nobody": not an address (0x followed by 40 hex digits), nor a key name in ${join(t.home, 'keystore')} (see nodectl keys list)`,
    )
    const short = await runCli(QueryBalance, ['0x12', ...node, ...home])
    expect(short.error?.message).toBe('invalid address "0x12": want 0x followed by 40 hex digits')
  })

  it('query logs filters by address and topic', async () => {
    const topic0 = store.interface.getEvent('ValueChanged')!.topicHash
    const logs = jsonOf<RpcLog[]>(await runCli(QueryLogs, ['--from', '0', '--address', storeAddress, '--topic', topic0, ...node, '--json']))
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({ address: storeAddress, transactionHash: setTx })
    const none = jsonOf(await runCli(QueryLogs, ['--from', '0', '--topic', 'any', '--topic', `0x${'0'.repeat(64)}`, ...node, '--json']))
    expect(none).toEqual([])
  })

  it('query txpool, gas-price and fee-history', async () => {
    const pool = jsonOf(await runCli(QueryTxpool, [...node, '--json']))
    expect(pool).toMatchObject({ pending: 0, queued: 0, content: { pending: {}, queued: {} } })
    const inspect = jsonOf<TxpoolResult>(await runCli(QueryTxpool, [...node, '--inspect', '--json']))
    expect(inspect.inspect).toEqual({ pending: {}, queued: {} })
    const price = jsonOf<GasPriceResult>(await runCli(QueryGasPrice, [...node, '--json']))
    expect(BigInt(price.gasPrice)).toBeGreaterThan(0n)
    const history = jsonOf<RpcFeeHistory>(await runCli(QueryFeeHistory, [...node, '--blocks', '2', '--percentiles', '50', '--json']))
    expect(history.gasUsedRatio.length).toBeGreaterThan(0)
    const human = await runCli(QueryFeeHistory, [...node, '--blocks', '2'])
    expect(human.stdout.join('\n')).toContain('next base fee')
  })

  it("the node's JSON-RPC errors are one line with their code, and a non-zero exit", async () => {
    const run = await runCli(QueryBlock, ['latest', '--node', t.url.replace(/\/?$/, ''), '--json'])
    expect(run.error).toBeUndefined()
    const missing = await runCli(QueryTx, [`0x${'ab'.repeat(32)}`, ...node])
    expect(missing.error?.message).toMatch(/not found/)
    expect(missing.exitCode).toBe(1)
    const bad = await runCli(FilterChanges, ['0xdeadbeef', ...node])
    expect(bad.error?.message).toBe('node error -32000: filter not found')
    expect(bad.exitCode).toBe(1)
    const badJson = await runCli(FilterChanges, ['0xdeadbeef', ...node, '--json'])
    expect(jsonOf(badJson)).toEqual({ error: { message: 'node error -32000: filter not found', code: -32000 } })
    expect(badJson.exitCode).toBe(1)
  })

  it('an unreachable node: "cannot reach node at URL" and exit 1', async () => {
    const run = await runCli(QueryBalance, [A0!.address, '--node', 'http://127.0.0.1:1'])
    expect(run.error?.message).toMatch(/^cannot reach node at http:\/\/127\.0\.0\.1:1/)
    expect(run.exitCode).toBe(1)
  })

  it('filter new-logs / new-blocks / changes / logs / uninstall', async () => {
    const logsFilter = jsonOf<NewFilterResult>(await runCli(FilterNewLogs, ['--from', '0', '--address', storeAddress, ...node, '--json']))
    expect(logsFilter).toMatchObject({ kind: 'logs', id: expect.stringMatching(/^0x[0-9a-f]+$/) })
    const all = jsonOf(await runCli(FilterLogs, [logsFilter.id, ...node, '--json']))
    expect(all).toHaveLength(1)
    const blocksFilter = jsonOf<NewFilterResult>(await runCli(FilterNewBlocks, [...node, '--json']))
    const tx = await store.getFunction('set')(43n, 'again')
    await tx.wait()
    const changes = await waitForBlock(
      t,
      async () => {
        const items = jsonOf<string[]>(await runCli(FilterChanges, [blocksFilter.id, ...node, '--json']))
        return items.length > 0 ? items : undefined
      },
      10_000,
      'block filter changes',
    )
    expect(changes[0]).toMatch(/^0x[0-9a-f]{64}$/)
    const logChanges = jsonOf<RpcLog[]>(await runCli(FilterChanges, [logsFilter.id, ...node, '--json']))
    expect(logChanges.some((l: { transactionHash: string }) => l.transactionHash === tx.hash)).toBe(true)
    expect(jsonOf(await runCli(FilterUninstall, [logsFilter.id, ...node, '--json']))).toEqual({ id: logsFilter.id, uninstalled: true })
    expect(jsonOf(await runCli(FilterUninstall, [logsFilter.id, ...node, '--json']))).toEqual({ id: logsFilter.id, uninstalled: false })
    expect((await rpc(t.url, 'eth_uninstallFilter', [blocksFilter.id])).result).toBe(true)
  })

  it('filter new-* print the id alone into a pipe, so `id=$(nodectl filter new-blocks)` works; a table on a terminal', async () => {
    for (const [command, argv] of [
      [FilterNewBlocks, []],
      [FilterNewLogs, ['--address', storeAddress]],
      [FilterNewPending, []],
    ] as const) {
      const piped = await withStdoutTerminal(false, () => runCli(command, [...argv, ...node]))
      expect(piped.error).toBeUndefined()
      expect(piped.stdout).toEqual([piped.result!.id])
      const id = piped.stdout[0]!
      expect(id).toMatch(/^0x[0-9a-f]+$/)
      // what `nodectl filter changes $id` does with the captured line
      const changes = await runCli(FilterChanges, [id, ...node, '--json'])
      expect(changes.error).toBeUndefined()
      expect(Array.isArray(jsonOf(changes))).toBe(true)
      const human = await withStdoutTerminal(true, () => runCli(command, [...argv, ...node]))
      expect(human.stdout.join('\n')).toMatch(new RegExp(`filter id\\s*│\\s*${human.result!.id}`))
      expect(human.stdout.join('\n')).toMatch(new RegExp(`kind\\s*│\\s*${human.result!.kind}`))
    }
  })

  it('filter watch logs prints each new log as a JSON line and uninstalls on exit', async () => {
    const installed = nextAnswer('eth_newFilter')
    const watching = runCli(FilterWatch, ['logs', '--address', storeAddress, '--interval', '50', '--count', '1', ...node, '--json'])
    await installed
    const tx = await store.getFunction('set')(44n, 'watched')
    await tx.wait()
    const run = await watching
    expect(run.error).toBeUndefined()
    expect(run.result).toMatchObject({ kind: 'logs', changes: 1, stoppedBy: 'count' })
    expect(JSON.parse(run.stdout[0]!)).toMatchObject({ transactionHash: tx.hash })
    expect((await rpc(t.url, 'eth_getFilterChanges', [run.result!.id])).error?.message).toBe('filter not found')
  })
})
