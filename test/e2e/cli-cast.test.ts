/**
 * The commands cast users reach for, against a real dev node through oclif's runner: `call` with a
 * human signature (decoded uint256 and string returns, raw hex without return types, `--data` and
 * `--data @file`), `send` of a contract call signed from the key store then read back with `call`,
 * `send --wait` on a gapped nonce saying what it waits for, `estimate`, `chain-id` and `block-number`,
 * and their `--json` forms.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ContractFactory, Interface, Wallet, JsonRpcProvider, type Contract } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import BlockNumber from '../../src/commands/block-number.js'
import Call, { type CallResult } from '../../src/commands/call.js'
import ChainId from '../../src/commands/chain-id.js'
import Estimate from '../../src/commands/estimate.js'
import Send from '../../src/commands/send.js'
import type { TxSendResult } from '../../src/cli/tx-command.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { jsonOf, runCli, startCli } from '../helpers/cli.js'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { compileContracts } from '../helpers/solidity.js'

const [ALICE, BOB] = devAccounts(2)

describe('cast-like commands against a dev node', () => {
  let t: TestNode
  let provider: JsonRpcProvider
  let token: string
  const node = (): string[] => ['--node', t.url]

  beforeAll(async () => {
    t = await startTestNode()
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    const { Token } = compileContracts('Token.sol')
    const deployed = await new ContractFactory(Token!.abi as never, Token!.bytecode, new Wallet(ALICE!.privateKey, provider)).deploy(
      1_000_000n,
    )
    await deployed.waitForDeployment()
    token = await (deployed as unknown as Contract).getAddress()
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('call decodes the return types of the signature, one value per line', async () => {
    const balance = await runCli(Call, [token, 'balanceOf(address)(uint256)', ALICE!.address, ...node()])
    expect(balance.error).toBeUndefined()
    expect(balance.stdout).toEqual(['1000000'])
    const name = await runCli(Call, [token, 'name()(string)', ...node()])
    expect(name.stdout).toEqual(['"Test Token"'])
    const json = jsonOf<CallResult>(await runCli(Call, [token, 'symbol()(string)', ...node(), '--json']))
    expect(json.values).toEqual(['TST'])
  })

  it('call without return types prints the raw data; --data and --data @file call the same', async () => {
    const raw = await runCli(Call, [token, 'decimals()', ...node()])
    expect(raw.stdout).toEqual([`0x${'12'.padStart(64, '0')}`])
    const data = new Interface(['function decimals()']).encodeFunctionData('decimals')
    expect((await runCli(Call, [token, '--data', data, ...node()])).stdout).toEqual(raw.stdout)
    const file = join(t.home, 'calldata.hex')
    await writeFile(file, `${data}\n`)
    expect((await runCli(Call, [token, '--data', `@${file}`, ...node()])).stdout).toEqual(raw.stdout)
  })

  it('send signs a contract call with a key-store account, and call reads the new state back', async () => {
    const run = await runCli(Send, [
      token,
      'transfer(address,uint256)',
      BOB!.address,
      '250',
      '--from',
      ALICE!.privateKey,
      '--wait',
      ...node(),
      '--json',
    ])
    const sent = jsonOf<TxSendResult>(run)
    expect(sent.status).toBe(1)
    expect(sent.to?.toLowerCase()).toBe(token.toLowerCase())
    expect((await runCli(Call, [token, 'balanceOf(address)(uint256)', BOB!.address, ...node()])).stdout).toEqual(['250'])
  })

  it('send --wait says at once that a gapped nonce is queued and what it waits for, then finishes when the gap fills', async () => {
    const wallet = new Wallet(ALICE!.privateKey, provider)
    const next = await provider.getTransactionCount(ALICE!.address, 'pending')
    const cli = startCli(Send, [
      BOB!.address,
      '--value',
      '1',
      '--from',
      ALICE!.privateKey,
      '--nonce',
      String(next + 1),
      '--wait',
      ...node(),
    ])
    const line = await cli.line('stderr', (l) => l.includes('queued'))
    expect(line).toMatch(new RegExp(`^sent 0x[0-9a-f]{64}; it is queued: its nonce ${next + 1} waits for nonce ${next} of 0x`, 'i'))
    await (await wallet.sendTransaction({ to: BOB!.address, value: 1n, nonce: next })).wait()
    const done = await cli.done
    expect(done.error).toBeUndefined()
    // Into a pipe the hash alone, once mined (`tx=$(nodectl send … --wait)`).
    expect(done.stdout).toEqual([line.split(' ')[1]!.replace(';', '')])
    const receipt = await provider.getTransactionReceipt(done.stdout[0]!)
    expect(receipt?.status).toBe(1)
  })

  it('estimate prints the gas of a call; chain-id and block-number print one decimal number', async () => {
    const estimate = await runCli(Estimate, [token, 'transfer(address,uint256)', BOB!.address, '1', '--from', ALICE!.address, ...node()])
    const gas = Number(estimate.stdout[0])
    expect(gas).toBeGreaterThan(21_000)
    expect(gas).toBeLessThan(100_000)
    expect((await runCli(ChainId, node())).stdout).toEqual(['31337'])
    const height = Number((await rpc<string>(t.url, 'eth_blockNumber')).result)
    expect(Number((await runCli(BlockNumber, node())).stdout[0])).toBeGreaterThanOrEqual(height)
  })

  it('a wrong signature, argument count or undecodable result is one clear error', async () => {
    const bad = await runCli(Call, [token, 'balanceOf', ...node()])
    expect(bad.error?.message).toMatch(/invalid signature "balanceOf"/)
    const count = await runCli(Call, [token, 'balanceOf(address)(uint256)', ...node()])
    expect(count.error?.message).toMatch(/balanceOf takes 1 argument, got 0/)
    const eoa = await runCli(Call, [BOB!.address, 'balanceOf(address)(uint256)', ALICE!.address, ...node()])
    expect(eoa.error?.message).toMatch(/cannot decode the result 0x as \(uint256\)/)
  })
})
