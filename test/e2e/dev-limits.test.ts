/**
 * Limits a test suite needs on a dev chain (docs/dev-chain.md, "Limits"): `--evm.disable-code-size-limit`
 * lifts EIP-170's 24,576-byte limit on deployed code and EIP-3860's 49,152-byte limit on init code for
 * execution, eth_call and eth_estimateGas alike, as Anvil's `--disable-code-size-limit`; without it the
 * limits hold; a node that is not a dev chain refuses the setting. EIP-7702 set-code transactions
 * (type 4) run on a dev chain end to end: signed with viem's signAuthorization, estimated by
 * eth_estimateGas with the authorization list, the authority's code
 * becomes the delegation 0xef0100 ‖ address and calls to it run the delegate's code in its storage.
 */
import { Wallet } from 'ethers'
import { createPublicClient, createWalletClient, getAddress, http, type Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReceiptJson } from '../../src/api/eth/format.js'
import { loadNodeConfig } from '../../src/config/load.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import { compileContracts } from '../helpers/solidity.js'

const CHAIN_ID = 31337n
const [A, B, C] = devAccounts(3)
const wallet = new Wallet(A!.privateKey)
/** EIP-170's limit on deployed code, in bytes. */
const MAX_CODE_SIZE = 24_576
/** EIP-3860's limit on init code, in bytes. */
const MAX_INITCODE_SIZE = 49_152
const UNLIMITED = { 'evm.disable-code-size-limit': true }

/** Init code deploying `size` zero bytes (PUSH2 size, PUSH1 0, RETURN), padded with zeros to `initSize` bytes. */
function initCode(size: number, initSize = 6): string {
  const prefix = `61${size.toString(16).padStart(4, '0')}6000f3`
  return `0x${prefix}${'00'.repeat(initSize - prefix.length / 2)}`
}

/** Gas enough for deploying 30 KB: 200 per byte of code (EIP-2) plus the init code's calldata and memory. */
const DEPLOY_GAS = 8_000_000n

async function deploy(t: TestNode, data: string): Promise<{ hash?: string; error?: string }> {
  const nonce = BigInt((await rpc<string>(t.url, 'eth_getTransactionCount', [A!.address, 'pending'])).result!)
  const raw = await wallet.signTransaction({
    type: 2,
    chainId: CHAIN_ID,
    nonce: Number(nonce),
    gasLimit: DEPLOY_GAS,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
    data,
  })
  const reply = await rpc<string>(t.url, 'eth_sendRawTransaction', [raw])
  return reply.error ? { error: reply.error.message } : { hash: reply.result! }
}

const mined = (t: TestNode, hash: string): Promise<ReceiptJson> =>
  waitForBlock(t, async () => (await rpc<ReceiptJson | null>(t.url, 'eth_getTransactionReceipt', [hash])).result)

const codeSize = async (t: TestNode, address: string): Promise<number> =>
  ((await rpc<string>(t.url, 'eth_getCode', [address, 'latest'])).result!.length - 2) / 2

describe('contract size limits on a dev chain', () => {
  let unlimited: TestNode
  let limited: TestNode
  const big = initCode(MAX_CODE_SIZE + 5_000)
  const callArgs = { from: A!.address, data: big, gas: `0x${DEPLOY_GAS.toString(16)}` }

  beforeAll(async () => {
    unlimited = await startTestNode({ flags: UNLIMITED })
    limited = await startTestNode()
  })
  afterAll(async () => {
    await unlimited?.destroy()
    await limited?.destroy()
  })

  it('with --evm.disable-code-size-limit: deploys code above 24 KiB from init code above 48 KiB; eth_call and estimateGas allow it; a restart keeps it', async () => {
    expect((await rpc<string>(unlimited.url, 'eth_call', [callArgs, 'latest'])).result).toBe(`0x${'00'.repeat(MAX_CODE_SIZE + 5_000)}`)
    const estimate = await rpc<string>(unlimited.url, 'eth_estimateGas', [callArgs])
    expect(estimate.error).toBeUndefined()

    const sent = await deploy(unlimited, big)
    const receipt = await mined(unlimited, sent.hash!)
    expect(receipt.status).toBe('0x1')
    expect(BigInt(estimate.result!)).toBeGreaterThanOrEqual(BigInt(receipt.gasUsed))
    expect(await codeSize(unlimited, receipt.contractAddress!)).toBe(MAX_CODE_SIZE + 5_000)

    const hugeInit = await deploy(unlimited, initCode(32, MAX_INITCODE_SIZE + 1_000))
    expect((await mined(unlimited, hugeInit.hash!)).status).toBe('0x1')

    const { home } = unlimited
    await unlimited.stop()
    unlimited = await startTestNode({ home, flags: UNLIMITED })
    expect(await codeSize(unlimited, receipt.contractAddress!)).toBe(MAX_CODE_SIZE + 5_000)
  })

  it('without it: the limits hold for execution, eth_call, estimateGas and admission', async () => {
    expect((await rpc(limited.url, 'eth_call', [callArgs, 'latest'])).error?.message).toMatch(/max code size exceeded/)
    expect((await rpc(limited.url, 'eth_estimateGas', [callArgs])).error).toBeDefined()
    const receipt = await mined(limited, (await deploy(limited, big)).hash!)
    expect(receipt.status).toBe('0x0')
    const hugeInit = await deploy(limited, initCode(32, MAX_INITCODE_SIZE + 1_000))
    expect(hugeInit.error).toMatch(/max initcode size exceeded/)
  })

  it('is refused on a node that is not a dev chain', async () => {
    await expect(loadNodeConfig({ home: limited.home, dev: false, env: {}, flags: UNLIMITED })).rejects.toThrow(
      '--evm.disable-code-size-limit: allowed on a dev chain only (nodectl start --dev)',
    )
  })
})

describe('EIP-7702 set-code transactions on a dev chain', () => {
  let t: TestNode
  const { Store } = compileContracts('Store.sol')
  const abi = Store!.abi as Abi
  const relay = privateKeyToAccount(A!.privateKey as Hex)
  const authority = privateKeyToAccount(B!.privateKey as Hex)

  beforeAll(async () => {
    t = await startTestNode()
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it("delegates the authority's code to a contract (gas estimated with the authorizations); eth_getTransactionByHash shows the authorization; calls run the delegate's code", async () => {
    const wallet = createWalletClient({ account: relay, chain: foundry, transport: http(t.url) })
    const reader = createPublicClient({ chain: foundry, transport: http(t.url) })
    const deployed = await mined(t, await wallet.deployContract({ abi, bytecode: Store!.bytecode as Hex, args: [1n] }))
    const delegate = deployed.contractAddress as Hex

    const authorization = await wallet.signAuthorization({ account: authority, contractAddress: delegate })
    const hash = await wallet.writeContract({
      address: authority.address,
      abi,
      functionName: 'set',
      args: [42n, 'through the delegation'],
      authorizationList: [authorization],
    })
    const receipt = await mined(t, hash)
    expect(receipt).toMatchObject({ status: '0x1', type: '0x4', to: authority.address.toLowerCase() })
    expect((await rpc<string>(t.url, 'eth_getCode', [authority.address, 'latest'])).result).toBe(
      `0xef0100${delegate.slice(2).toLowerCase()}`,
    )
    expect(await reader.readContract({ address: authority.address, abi, functionName: 'value' })).toBe(42n)
    expect(await reader.readContract({ address: delegate, abi, functionName: 'value' })).toBe(1n)

    const tx = (
      await rpc<{ type: string; authorizationList: { address: string; nonce: string; chainId: string }[] }>(
        t.url,
        'eth_getTransactionByHash',
        [hash],
      )
    ).result!
    expect(tx.type).toBe('0x4')
    expect(tx.authorizationList).toEqual([
      expect.objectContaining({ address: delegate.toLowerCase(), nonce: `0x${authorization.nonce.toString(16)}`, chainId: '0x7a69' }),
    ])
    expect(getAddress((await reader.getTransaction({ hash })).to!)).toBe(authority.address)
  })

  it("eth_sendTransaction from a node account carries the authorization list (hardhat-ethers' signers send so)", async () => {
    const local = createWalletClient({ account: relay, chain: foundry, transport: http(t.url) })
    const nodeSigned = createWalletClient({ account: A!.address as Hex, chain: foundry, transport: http(t.url) })
    const reader = createPublicClient({ chain: foundry, transport: http(t.url) })
    const deployed = await mined(t, await local.deployContract({ abi, bytecode: Store!.bytecode as Hex, args: [1n] }))
    const delegate = deployed.contractAddress as Hex
    const signer = privateKeyToAccount(C!.privateKey as Hex)
    const authorization = await local.signAuthorization({ account: signer, contractAddress: delegate })
    const hash = await nodeSigned.writeContract({
      address: signer.address,
      abi,
      functionName: 'set',
      args: [7n, 'signed by the node'],
      authorizationList: [authorization],
    })
    expect((await mined(t, hash)).type).toBe('0x4')
    expect(await reader.readContract({ address: signer.address, abi, functionName: 'value' })).toBe(7n)
  })
})
