/**
 * The EVM application under a stock CometBFT: `cometbft start` and `nodectl start --abci` as two
 * processes on one home from `nodectl init`. ethers deploys a contract, sends transfers and reads
 * receipts, logs and balances through nodectl's EVM JSON-RPC, and viem reads and sends too; a gapped
 * nonce waits as queued; cosmjs, against CometBFT's own RPC, finds
 * the transactions with tx_search by EVM hash (CometBFT's kv indexer over the events the application
 * emits); a bad transaction is a CheckTx refusal with geth's message; the application killed with
 * SIGKILL and started again comes back at CometBFT's height with every receipt.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Comet38Client } from '@cosmjs/tendermint-rpc'
import { type Contract, ContractFactory, JsonRpcProvider, Wallet, parseEther, type TransactionReceipt } from 'ethers'
import { type Hex, createPublicClient, createWalletClient, defineChain, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { defaultNodeSettings } from '../../src/config/defaults.js'
import { initHome } from '../../src/config/init-home.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { CometbftPair } from '../helpers/cometbft-pair.js'
import { describeWithCometbft } from '../helpers/cometbft.js'
import { waitFor } from '../helpers/dev-node.js'
import { pickPortBlock } from '../helpers/ports.js'
import { compileContracts } from '../helpers/solidity.js'

const [ALICE, BOB] = devAccounts(2)
/** Bound on waits for heights and receipts under CometBFT's timeouts. */
const WAIT_MS = 60_000

describeWithCometbft('the EVM application under a stock CometBFT', (bin) => {
  let dir: string
  let pair: CometbftPair
  let provider: JsonRpcProvider
  let alice: Wallet
  let token: Contract
  const receipts: TransactionReceipt[] = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-abci-'))
    const settings = defaultNodeSettings('abci0')
    // Blocks as soon as a height is decided: the test waits for receipts, not for CometBFT's one-second commit.
    settings.consensus.timeoutCommit = 100
    const home = await initHome({
      home: join(dir, 'home'),
      moniker: 'abci0',
      settings,
      accounts: [{ address: ALICE!.address, balance: parseEther('1000') }],
    })
    const port = await pickPortBlock(3)
    pair = new CometbftPair(bin, home.home, { abci: port, rpc: port + 1, p2p: port + 2 })
    await pair.start()
    provider = new JsonRpcProvider(pair.evmUrl, undefined, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 })
    alice = new Wallet(ALICE!.privateKey, provider)
  }, 120_000)

  afterAll(async () => {
    provider?.destroy()
    await pair?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('deploys a contract and sends transfers through CometBFT, with receipts, logs and balances', async () => {
    const { Token } = compileContracts('Token.sol')
    const factory = new ContractFactory(Token!.abi as never, Token!.bytecode, alice)
    const deployed = await factory.deploy(1_000_000n)
    await deployed.waitForDeployment()
    token = deployed as unknown as Contract
    receipts.push((await deployed.deploymentTransaction()!.wait())!)

    const transfer = await token.getFunction('transfer')(BOB!.address, 250n)
    const transferReceipt = (await transfer.wait()) as TransactionReceipt
    receipts.push(transferReceipt)
    expect(transferReceipt.status).toBe(1)
    expect(await token.getFunction('balanceOf')(BOB!.address)).toBe(250n)
    const [log] = transferReceipt.logs
    expect(token.interface.parseLog(log!)?.name).toBe('Transfer')
    const logs = await provider.getLogs({ address: await token.getAddress(), fromBlock: 0 })
    expect(logs.map((l) => l.transactionHash)).toContain(transferReceipt.hash)

    const value = await alice.sendTransaction({ to: BOB!.address, value: parseEther('1.5') })
    receipts.push((await value.wait())!)
    expect(await provider.getBalance(BOB!.address)).toBe(parseEther('1.5'))
  })

  it('the block of each receipt is the height CometBFT committed, with the app hash as its state root', async () => {
    const comet = await Comet38Client.connect(pair.cometUrl)
    try {
      for (const receipt of receipts) {
        const evmBlock = await provider.send('eth_getBlockByNumber', [`0x${receipt.blockNumber.toString(16)}`, false])
        // CometBFT puts the app hash of height h into the header of h + 1.
        await waitFor(async () => (await pair.cometHeight()) > receipt.blockNumber, WAIT_MS, `height ${receipt.blockNumber + 1}`)
        const next = await comet.block(receipt.blockNumber + 1)
        expect(`0x${Buffer.from(next.block.header.appHash).toString('hex')}`).toBe(evmBlock.stateRoot)
      }
    } finally {
      comet.disconnect()
    }
  })

  it("CometBFT's tx_search finds each transaction by its EVM hash", async () => {
    const comet = await Comet38Client.connect(pair.cometUrl)
    try {
      for (const receipt of receipts) {
        const found = await comet.txSearchAll({ query: `ethereum_tx.ethereumTxHash='${receipt.hash}'` })
        expect(found.totalCount).toBe(1)
        expect(found.txs[0]!.height).toBe(receipt.blockNumber)
      }
    } finally {
      comet.disconnect()
    }
  })

  it("refuses a bad transaction with geth's message, and the pending nonce follows what CheckTx admitted", async () => {
    const nonce = await provider.getTransactionCount(alice.address, 'latest')
    const stale = await alice.signTransaction({
      to: BOB!.address,
      value: 1n,
      nonce: nonce - 1,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      chainId: (await provider.getNetwork()).chainId,
      type: 2,
    })
    await expect(provider.send('eth_sendRawTransaction', [stale])).rejects.toThrow(/nonce too low/)
    expect(await provider.getTransactionCount(alice.address, 'pending')).toBe(nonce)
  })

  it('a gapped nonce waits as queued in the pool until the gap fills, then both are mined', async () => {
    const nonce = await provider.getTransactionCount(alice.address, 'pending')
    const chainId = (await provider.getNetwork()).chainId
    const sign = (n: number) =>
      alice.signTransaction({
        to: BOB!.address,
        value: 1n,
        nonce: n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
        chainId,
        type: 2,
      })
    const gapped = await provider.send('eth_sendRawTransaction', [await sign(nonce + 1)])
    const content = await provider.send('txpool_content', [])
    expect(Object.keys(content.queued[alice.address] ?? {})).toEqual([String(nonce + 1)])
    // Blocks go on without it.
    const height = await provider.getBlockNumber()
    await waitFor(async () => (await provider.getBlockNumber()) > height + 1, WAIT_MS, 'two more blocks')
    expect(await provider.getTransactionReceipt(gapped)).toBeNull()
    const filler = await provider.send('eth_sendRawTransaction', [await sign(nonce)])
    for (const hash of [filler, gapped]) expect((await provider.waitForTransaction(hash, 1, WAIT_MS))?.status).toBe(1)
  })

  it('viem reads blocks and sends a transaction', async () => {
    const chain = defineChain({
      id: Number((await provider.getNetwork()).chainId),
      name: 'nodectl under CometBFT',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [pair.evmUrl] } },
    })
    const publicClient = createPublicClient({ chain, transport: http(pair.evmUrl) })
    const walletClient = createWalletClient({ chain, transport: http(pair.evmUrl), account: privateKeyToAccount(ALICE!.privateKey as Hex) })
    const hash = await walletClient.sendTransaction({ to: BOB!.address as Hex, value: 7n })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 })
    expect(receipt.status).toBe('success')
    const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber, includeTransactions: true })
    expect(block.hash).toBe(receipt.blockHash)
    expect(block.transactions.map((t) => t.hash)).toContain(hash)
  })

  it('a SIGKILLed application restarts at the height CometBFT has, with every receipt', async () => {
    await pair.kill('app')
    await pair.kill('comet')
    await pair.startApp()
    provider.destroy()
    provider = new JsonRpcProvider(pair.evmUrl, undefined, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 })
    alice = new Wallet(ALICE!.privateKey, provider)
    await pair.startComet()
    for (const receipt of receipts) expect((await provider.getTransactionReceipt(receipt.hash))?.blockHash).toBe(receipt.blockHash)
    const after = await alice.sendTransaction({ to: BOB!.address, value: 1n })
    expect((await after.wait())?.status).toBe(1)
  })
})
