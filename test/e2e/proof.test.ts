/**
 * eth_getProof and eth_createAccessList against a real dev node. Proofs are verified independently of
 * the node's code: the trie is rebuilt from the returned nodes alone (@ethereumjs/mpt), its root must be
 * the block's `stateRoot` (or the account's `storageHash`), and the value found under keccak256(address)
 * (keccak256(slot)) must be the RLP account (value) the proof and the other eth methods report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import {
  AbiCoder,
  type Contract,
  ContractFactory,
  Interface,
  JsonRpcProvider,
  Wallet,
  getBytes,
  hexlify,
  keccak256,
  toBeHex,
  zeroPadValue,
} from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import type { BlockJson } from '../../src/api/eth/format.js'
import type { AccessListResultJson } from '../../src/api/eth/eth-proof.js'

const [KEY0, KEY1] = devAccounts(2).map((a) => a.privateKey)
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'
const EMPTY_CODE_HASH = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'
/** Token.sol layout: name, symbol, decimals, totalSupply, then `balanceOf` at slot 4. */
const BALANCE_OF_SLOT = 4n

interface ProofJson {
  address: string
  accountProof: string[]
  balance: string
  codeHash: string
  nonce: string
  storageHash: string
  storageProof: { key: string; value: string; proof: string[] }[]
}

/** The result of a call, of the shape `T` the caller expects; throws on an error reply. */
async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await rpc(url, method, params)
  if (r.error) throw new Error(`${method}: ${r.error.message}`)
  return r.result as T
}

/** QUANTITY encoding (ethers' toBeHex pads to whole bytes). */
const quantity = (n: bigint): string => '0x' + n.toString(16)
const toBigInt = (bytes: Uint8Array): bigint => (bytes.length === 0 ? 0n : BigInt(hexlify(bytes)))
/** Storage slot of `balanceOf[holder]`: keccak256(pad32(holder) ‖ pad32(4)). */
const balanceSlot = (holder: string): string =>
  keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [holder, BALANCE_OF_SLOT]))

/** Checks the account proof against `stateRoot`; returns the proven account, or undefined when absent. */
async function verifyAccount(
  proof: ProofJson,
  stateRoot: string,
): Promise<{ nonce: bigint; balance: bigint; storageRoot: string; codeHash: string } | undefined> {
  const value = await verifyMerkleProof(
    getBytes(keccak256(proof.address)),
    proof.accountProof.map((n) => getBytes(n)),
    { root: getBytes(stateRoot) },
  )
  if (value === null) return undefined
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(value) as Uint8Array[]
  return { nonce: toBigInt(nonce!), balance: toBigInt(balance!), storageRoot: hexlify(storageRoot!), codeHash: hexlify(codeHash!) }
}

/** Checks a storage proof against `storageHash`; returns the proven value (0 when absent). */
async function verifySlot(entry: ProofJson['storageProof'][number], storageHash: string): Promise<bigint> {
  if (entry.proof.length === 0) {
    expect(storageHash).toBe(EMPTY_TRIE_ROOT)
    return 0n
  }
  const value = await verifyMerkleProof(
    getBytes(keccak256(zeroPadValue(toBeHex(BigInt(entry.key)), 32))),
    entry.proof.map((n) => getBytes(n)),
    { root: getBytes(storageHash) },
  )
  return value === null ? 0n : toBigInt(RLP.decode(value) as Uint8Array)
}

describe('eth_getProof and eth_createAccessList', () => {
  let t: TestNode
  let provider: JsonRpcProvider
  let alice: Wallet
  let token: Contract
  let tokenAddress: string
  const bob = new Wallet(KEY1!)
  const { Token } = compileContracts('Token.sol')

  beforeAll(async () => {
    t = await startTestNode()
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    alice = new Wallet(KEY0!, provider)
    const deployed = await new ContractFactory(Token!.abi as never, Token!.bytecode, alice).deploy(1_000_000n)
    await deployed.waitForDeployment()
    token = deployed as unknown as Contract
    tokenAddress = (await token.getAddress()).toLowerCase()
    await (await token.getFunction('transfer')(bob.address, 250n)).wait()
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('proves an EOA against the block state root', async () => {
    const block = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false])
    const proof = await result<ProofJson>(t.url, 'eth_getProof', [alice.address, [], block.number])
    const account = await verifyAccount(proof, block.stateRoot)
    expect(account).toEqual({
      nonce: BigInt(await result<string>(t.url, 'eth_getTransactionCount', [alice.address, block.number])),
      balance: BigInt(await result<string>(t.url, 'eth_getBalance', [alice.address, block.number])),
      storageRoot: EMPTY_TRIE_ROOT,
      codeHash: EMPTY_CODE_HASH,
    })
    expect(proof).toMatchObject({
      address: alice.address.toLowerCase(),
      balance: quantity(account!.balance),
      nonce: quantity(account!.nonce),
      storageHash: EMPTY_TRIE_ROOT,
      codeHash: EMPTY_CODE_HASH,
      storageProof: [],
    })
  })

  it('proves a contract and its storage slots, with storageHash the real storage root', async () => {
    const block = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false])
    const slots = [balanceSlot(alice.address), balanceSlot(bob.address), toBeHex(3n, 32), balanceSlot('0x' + '99'.repeat(20))]
    const proof = await result<ProofJson>(t.url, 'eth_getProof', [tokenAddress, slots, block.hash])
    const account = await verifyAccount(proof, block.stateRoot)
    expect(account?.storageRoot).toBe(proof.storageHash)
    expect(proof.storageHash).not.toBe(EMPTY_TRIE_ROOT)
    expect(account?.codeHash).toBe(keccak256(await result<string>(t.url, 'eth_getCode', [tokenAddress, block.number])))
    expect(proof.storageProof.map((s) => s.key)).toEqual(slots)
    const proven = await Promise.all(proof.storageProof.map((s) => verifySlot(s, proof.storageHash)))
    expect(proven).toEqual([1_000_000n - 250n, 250n, 1_000_000n, 0n])
    expect(proof.storageProof.map((s) => BigInt(s.value))).toEqual(proven)
    for (const [i, slot] of slots.entries())
      expect(BigInt(await result<string>(t.url, 'eth_getStorageAt', [tokenAddress, slot, block.number]))).toBe(proven[i])
  })

  it('proves older state against the older block, absent accounts, and echoes short keys as geth', async () => {
    const deployBlock = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x1', false])
    const old = await result<ProofJson>(t.url, 'eth_getProof', [tokenAddress, [balanceSlot(bob.address)], '0x1'])
    const account = await verifyAccount(old, deployBlock.stateRoot)
    // At block 1 either the token does not exist yet or bob has no balance yet: both are proven.
    if (account === undefined) expect(old.storageHash).toBe(EMPTY_TRIE_ROOT)
    expect(await verifySlot(old.storageProof[0]!, old.storageHash)).toBe(0n)

    const latest = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false])
    const absent = await result<ProofJson>(t.url, 'eth_getProof', ['0x' + 'ab'.repeat(20), ['0x0'], 'latest'])
    expect(await verifyAccount(absent, latest.stateRoot)).toBeUndefined()
    expect(absent).toMatchObject({
      balance: '0x0',
      nonce: '0x0',
      codeHash: EMPTY_CODE_HASH,
      storageHash: EMPTY_TRIE_ROOT,
      storageProof: [{ key: '0x0', value: '0x0', proof: [] }],
    })

    const short = await result<ProofJson>(t.url, 'eth_getProof', [tokenAddress, ['0x3', toBeHex(3n, 32)]])
    expect(short.storageProof.map((s) => [s.key, s.value])).toEqual([
      ['0x3', quantity(1_000_000n)],
      [toBeHex(3n, 32), quantity(1_000_000n)],
    ])
    // geth decodes the keys in the handler: a bad one is -32000 with decodeHash's reason.
    expect((await rpc(t.url, 'eth_getProof', [tokenAddress, ['0x' + '00'.repeat(33)], 'latest'])).error).toEqual({
      code: -32000,
      message: 'hex string too long, want at most 32 bytes',
    })
    expect((await rpc(t.url, 'eth_getProof', [tokenAddress, [], '0xffffff'])).error).toEqual({ code: -32000, message: 'header not found' })
  })

  it('creates the access list of a storage-touching call', async () => {
    const iface = new Interface(Token!.abi as never)
    const read = await result<AccessListResultJson>(t.url, 'eth_createAccessList', [
      { from: alice.address, to: tokenAddress, data: iface.encodeFunctionData('balanceOf', [bob.address]) },
      'latest',
    ])
    expect(read.accessList).toEqual([{ address: tokenAddress, storageKeys: [balanceSlot(bob.address)] }])
    expect(BigInt(read.gasUsed)).toBeGreaterThan(21_000n)
    expect(read).not.toHaveProperty('error')

    const transfer = await result<AccessListResultJson>(t.url, 'eth_createAccessList', [
      { from: alice.address, to: tokenAddress, data: iface.encodeFunctionData('transfer', [bob.address, 1n]) },
    ])
    expect(transfer.accessList).toHaveLength(1)
    expect(new Set(transfer.accessList[0].storageKeys)).toEqual(new Set([balanceSlot(alice.address), balanceSlot(bob.address)]))
    // The list is a fixed point: given back, it comes back unchanged, at the same gas.
    const again = await result<AccessListResultJson>(t.url, 'eth_createAccessList', [
      {
        from: alice.address,
        to: tokenAddress,
        data: iface.encodeFunctionData('transfer', [bob.address, 1n]),
        accessList: transfer.accessList,
      },
    ])
    expect(again).toEqual(transfer)

    const failing = await result<AccessListResultJson>(t.url, 'eth_createAccessList', [
      { from: bob.address, to: tokenAddress, data: iface.encodeFunctionData('transfer', [alice.address, 10n ** 30n]) },
    ])
    expect(failing.error).toBe('execution reverted')
    expect(failing.accessList[0].storageKeys).toContain(balanceSlot(bob.address))

    const transferEth = await result<AccessListResultJson>(t.url, 'eth_createAccessList', [
      { from: alice.address, to: bob.address, value: '0x1' },
    ])
    expect(transferEth).toEqual({ accessList: [], gasUsed: '0x5208' })
  })
})
