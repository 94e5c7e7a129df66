/**
 * A test file written as a Hardhat project's tests are (a deployed contract fixture restored with
 * `loadFixture` before each test, `mine`, `time.increase`/`increaseTo`/`latest`, impersonation,
 * `setBalance`/`setStorageAt`/`setCode`/`setNonce`, several transactions in one block with automine
 * off), through viem's test client in anvil mode and the helpers of hardhat-network-helpers
 * (test/helpers/network-helpers.ts). The same body runs against `nodectl start --dev` (the built
 * binary) and against Anvil: passing on Anvil proves the test asks for the real semantics.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeAbiParameters,
  getAddress,
  http,
  pad,
  parseEther,
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from 'viem'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { type DevTarget, startAnvil, startNodectlDev } from '../helpers/dev-targets.js'
import { type NetworkHelpers, networkHelpers } from '../helpers/network-helpers.js'
import { compileContracts } from '../helpers/solidity.js'

const { Lock } = compileContracts('Lock.sol')
const abi = Lock!.abi as Abi
const [OWNER, OTHER, THIRD] = devAccounts(3).map((a) => getAddress(a.address))
const WHALE = getAddress('0x00000000000000000000000000000000000dead1')
const ONE_YEAR = 365 * 24 * 60 * 60
const LOCKED = parseEther('1')

const targets: [string, () => Promise<DevTarget>][] = [
  ['nodectl start --dev', startNodectlDev],
  ['anvil', startAnvil],
]

describe.each(targets)('a Hardhat-style suite against %s', (_name, start) => {
  let target: DevTarget
  let chain: Chain
  let test: TestClient
  let client: PublicClient
  let helpers: NetworkHelpers
  const wallet = (account: Address): WalletClient => createWalletClient({ account, chain, transport: http(target.url) })

  beforeAll(async () => {
    target = await start()
    chain = { ...foundry, rpcUrls: { default: { http: [target.url] } } }
    test = createTestClient({ mode: 'anvil', chain, transport: http(target.url) })
    client = createPublicClient({ chain, transport: http(target.url), pollingInterval: 20, cacheTime: 0 })
    helpers = networkHelpers(test, client)
  }, 90_000)
  afterAll(async () => {
    await target?.stop()
  })

  /** The fixture: a Lock holding 1 ether for OWNER until a year from now. */
  async function deployLock() {
    const unlockTime = (await helpers.time.latest()) + ONE_YEAR
    const hash = await wallet(OWNER!).deployContract({
      abi,
      bytecode: Lock!.bytecode as Hex,
      args: [BigInt(unlockTime)],
      value: LOCKED,
      account: OWNER!,
      chain,
    })
    const receipt = await client.waitForTransactionReceipt({ hash })
    return { lock: receipt.contractAddress!, unlockTime }
  }

  const read = <T>(lock: Address, functionName: string): Promise<T> =>
    client.readContract({ address: lock, abi, functionName }) as Promise<T>
  const write = async (lock: Address, from: Address, functionName: string, value?: bigint) => {
    const hash = await wallet(from).writeContract({ address: lock, abi, functionName, account: from, chain, ...(value ? { value } : {}) })
    return client.waitForTransactionReceipt({ hash })
  }

  describe('Deployment', () => {
    it('sets the unlock time, the owner and the locked funds', async () => {
      const { lock, unlockTime } = await helpers.loadFixture(deployLock)
      expect(await read<bigint>(lock, 'unlockTime')).toBe(BigInt(unlockTime))
      expect(await read<Address>(lock, 'owner')).toBe(OWNER)
      expect(await client.getBalance({ address: lock })).toBe(LOCKED)
    })
  })

  describe('Withdrawals', () => {
    it('reverts before the unlock time', async () => {
      const { lock } = await helpers.loadFixture(deployLock)
      await expect(client.simulateContract({ address: lock, abi, functionName: 'withdraw', account: OWNER! })).rejects.toThrow(
        /You can't withdraw yet/,
      )
    })

    it('lets the owner withdraw once time.increaseTo reaches the unlock time, with its event', async () => {
      const { lock, unlockTime } = await helpers.loadFixture(deployLock)
      await helpers.time.increaseTo(unlockTime)
      expect(await helpers.time.latest()).toBe(unlockTime)
      await expect(client.simulateContract({ address: lock, abi, functionName: 'withdraw', account: OTHER! })).rejects.toThrow(
        /You aren't the owner/,
      )
      const receipt = await write(lock, OWNER!, 'withdraw')
      expect(receipt.status).toBe('success')
      expect(receipt.logs).toHaveLength(1)
      expect(await client.getBalance({ address: lock })).toBe(0n)
    })

    it('finds the fixture as deployed again: loadFixture reverted the withdrawal and the time', async () => {
      const { lock, unlockTime } = await helpers.loadFixture(deployLock)
      expect(await client.getBalance({ address: lock })).toBe(LOCKED)
      expect(await helpers.time.latest()).toBeLessThan(unlockTime)
    })
  })

  describe('Time and mining', () => {
    it('time.increase makes the next block exactly that much later', async () => {
      await helpers.loadFixture(deployLock)
      const before = await helpers.time.latest()
      const target = await helpers.time.increase(3600)
      expect(target).toBe(before + 3600)
      expect(await helpers.time.latest()).toBe(before + 3600)
    })

    it('mine(n, {interval}) makes n blocks, each after the first `interval` seconds after the previous', async () => {
      await helpers.loadFixture(deployLock)
      const before = await client.getBlockNumber()
      await helpers.mine(5, { interval: 60 })
      expect(await client.getBlockNumber()).toBe(before + 5n)
      const blocks = await Promise.all([2n, 3n, 4n, 5n].map((i) => client.getBlock({ blockNumber: before + i })))
      const first = await client.getBlock({ blockNumber: before + 1n })
      expect(blocks.map((b, i) => Number(b.timestamp - (i === 0 ? first : blocks[i - 1]!).timestamp))).toEqual([60, 60, 60, 60])
      await helpers.mine()
      expect(await client.getBlockNumber()).toBe(before + 6n)
    })

    it('puts several transactions in one block with automine off, then mine', async () => {
      const { lock } = await helpers.loadFixture(deployLock)
      const before = await client.getBlockNumber()
      await test.setAutomine(false)
      try {
        const hashes = await Promise.all(
          [OWNER!, OTHER!, THIRD!].map((from) =>
            wallet(from).writeContract({ address: lock, abi, functionName: 'deposit', account: from, chain, value: 1n, gas: 100_000n }),
          ),
        )
        // Nothing is mined until asked.
        expect(await client.getBlockNumber()).toBe(before)
        await helpers.mine()
        const receipts = await Promise.all(hashes.map((hash) => client.getTransactionReceipt({ hash })))
        expect(new Set(receipts.map((r) => r.blockNumber))).toEqual(new Set([before + 1n]))
        expect(receipts.map((r) => r.status)).toEqual(['success', 'success', 'success'])
        expect(await read<bigint>(lock, 'deposits')).toBe(3n)
      } finally {
        await test.setAutomine(true)
      }
    })
  })

  describe('Impersonation and state', () => {
    it('sends from an impersonated address funded with setBalance', async () => {
      const { lock } = await helpers.loadFixture(deployLock)
      await test.impersonateAccount({ address: WHALE })
      await test.setBalance({ address: WHALE, value: parseEther('10') })
      expect(await client.getBalance({ address: WHALE })).toBe(parseEther('10'))
      const receipt = await write(lock, WHALE, 'deposit', parseEther('2'))
      expect(receipt.status).toBe('success')
      expect(getAddress(receipt.from)).toBe(WHALE)
      expect(await client.getBalance({ address: lock })).toBe(LOCKED + parseEther('2'))
      await test.stopImpersonatingAccount({ address: WHALE })
      await expect(wallet(WHALE).sendTransaction({ to: lock, value: 1n, account: WHALE, chain, gas: 100_000n })).rejects.toThrow()
    })

    it('setStorageAt rewrites the owner, and the contract obeys it', async () => {
      const { lock, unlockTime } = await helpers.loadFixture(deployLock)
      await test.setStorageAt({ address: lock, index: 1, value: pad(OTHER!) })
      expect(await read<Address>(lock, 'owner')).toBe(OTHER)
      await helpers.time.increaseTo(unlockTime)
      expect((await write(lock, OTHER!, 'withdraw')).status).toBe('success')
      expect(await client.getBalance({ address: lock })).toBe(0n)
    })

    it('setCode puts the contract at another address, whose storage setStorageAt fills', async () => {
      const { lock } = await helpers.loadFixture(deployLock)
      const copy = getAddress('0x000000000000000000000000000000000000c0de')
      await test.setCode({ address: copy, bytecode: (await client.getCode({ address: lock }))! })
      expect(await client.getCode({ address: copy })).toBe(Lock!.deployedBytecode)
      await test.setStorageAt({ address: copy, index: 0, value: encodeAbiParameters([{ type: 'uint256' }], [42n]) })
      expect(await read<bigint>(copy, 'unlockTime')).toBe(42n)
    })

    it('setNonce and setBalance change an account as read at latest', async () => {
      await helpers.loadFixture(deployLock)
      await test.setNonce({ address: WHALE, nonce: 42 })
      expect(await client.getTransactionCount({ address: WHALE })).toBe(42)
      await test.setBalance({ address: WHALE, value: 123n })
      expect(await client.getBalance({ address: WHALE })).toBe(123n)
    })

    it('finds the fixture untouched after all of it', async () => {
      const { lock } = await helpers.loadFixture(deployLock)
      expect(await read<Address>(lock, 'owner')).toBe(OWNER)
      expect(await read<bigint>(lock, 'deposits')).toBe(0n)
      expect(await client.getBalance({ address: lock })).toBe(LOCKED)
      expect(await client.getBalance({ address: WHALE })).toBe(0n)
      expect(await client.getTransactionCount({ address: WHALE })).toBe(0)
    })
  })
})
