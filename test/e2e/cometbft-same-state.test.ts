/**
 * The application is the same whichever engine drives it: the same signed transactions, committed once
 * by our engine (`nodectl start`) and once by a stock CometBFT (`cometbft` + `nodectl start --abci`), from
 * one genesis and one validator key, give the same receipts and the same EVM state root. The genesis turns
 * the base fee off (`no_base_fee`), so what a transaction pays does not depend on how the engines
 * happen to cut blocks.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ContractFactory, Interface, Wallet, getCreateAddress, parseEther, parseUnits } from 'ethers'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { defaultNodeSettings } from '../../src/config/defaults.js'
import { initHome } from '../../src/config/init-home.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { CometbftPair } from '../helpers/cometbft-pair.js'
import { describeWithCometbft } from '../helpers/cometbft.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { pickPortBlock } from '../helpers/ports.js'
import { compileContracts } from '../helpers/solidity.js'

const [ALICE, BOB] = devAccounts(2)
const WAIT_MS = 60_000

/** What must agree between the engines: everything but where the block fell. */
interface ReceiptView {
  status: string
  gasUsed: string
  contractAddress: string | null
  logs: { address: string; topics: string[]; data: string }[]
}

/** Sends the raw transactions one by one to `url`, each after the previous one's receipt. */
async function commitAll(url: string, raws: string[]): Promise<{ receipts: ReceiptView[]; stateRoot: string }> {
  const receipts: ReceiptView[] = []
  let lastBlock = '0x0'
  for (const raw of raws) {
    const sent = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    expect(sent.error).toBeUndefined()
    const receipt = await waitFor(
      async () => (await rpc<Record<string, unknown> | null>(url, 'eth_getTransactionReceipt', [sent.result])).result,
      WAIT_MS,
      `receipt of ${sent.result}`,
    )
    const logs = receipt.logs as { address: string; topics: string[]; data: string }[]
    receipts.push({
      status: receipt.status as string,
      gasUsed: receipt.gasUsed as string,
      contractAddress: receipt.contractAddress as string | null,
      logs: logs.map(({ address, topics, data }) => ({ address, topics, data })),
    })
    lastBlock = receipt.blockNumber as string
  }
  const block = await rpc<{ stateRoot: string }>(url, 'eth_getBlockByNumber', [lastBlock, false])
  return { receipts, stateRoot: block.result!.stateRoot }
}

describeWithCometbft('one application, two engines', (bin) => {
  let dir: string
  let pair: CometbftPair | undefined
  let ours: TestNode | undefined
  const raws: string[] = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-engines-'))
    const settings = defaultNodeSettings('engines')
    settings.consensus.timeoutCommit = 100
    const accounts = [{ address: ALICE!.address, balance: parseEther('100') }]
    const comet = await initHome({ home: join(dir, 'comet'), moniker: 'engines', settings, accounts })
    const genesisPath = join(comet.home, 'config', 'genesis.json')
    const genesis = JSON.parse(await readFile(genesisPath, 'utf8'))
    genesis.app_state.fee_market.no_base_fee = true
    await writeFile(genesisPath, JSON.stringify(genesis, null, 2))
    // Our engine's home: the same genesis and validator key, so the same proposer and fee recipient.
    const own = await initHome({ home: join(dir, 'own'), moniker: 'engines', settings, accounts })
    for (const file of ['config/genesis.json', 'config/priv_validator_key.json'])
      await copyFile(join(comet.home, file), join(own.home, file))

    const alice = new Wallet(ALICE!.privateKey)
    const { Token } = compileContracts('Token.sol')
    const token = new Interface(Token!.abi as never)
    const deploy = await new ContractFactory(Token!.abi as never, Token!.bytecode).getDeployTransaction(1_000_000n)
    const tokenAddress = getCreateAddress({ from: alice.address, nonce: 0 })
    const common = { chainId: comet.evmChainId, gasPrice: parseUnits('1', 'gwei'), type: 0 }
    raws.push(
      await alice.signTransaction({ ...common, nonce: 0, gasLimit: 1_000_000n, data: deploy.data }),
      await alice.signTransaction({
        ...common,
        nonce: 1,
        gasLimit: 100_000n,
        to: tokenAddress,
        data: token.encodeFunctionData('transfer', [BOB!.address, 250n]),
      }),
      await alice.signTransaction({ ...common, nonce: 2, gasLimit: 21_000n, to: BOB!.address, value: parseEther('1.5') }),
      // Reverts (more than the balance): a failed receipt that still pays for its gas.
      await alice.signTransaction({
        ...common,
        nonce: 3,
        gasLimit: 100_000n,
        to: tokenAddress,
        data: token.encodeFunctionData('transfer', [BOB!.address, 10n ** 30n]),
      }),
    )

    const port = await pickPortBlock(3)
    pair = new CometbftPair(bin, comet.home, { abci: port, rpc: port + 1, p2p: port + 2 })
    await pair.start()
    ours = await startTestNode({
      home: own.home,
      dev: false,
      flags: {
        'json-rpc.enable': true,
        'json-rpc.address': '127.0.0.1:0',
        'json-rpc.ws-address': '127.0.0.1:0',
        'rpc.laddr': 'tcp://127.0.0.1:0',
        'p2p.laddr': 'tcp://127.0.0.1:0',
      },
    })
  }, 120_000)

  afterAll(async () => {
    await pair?.stop()
    await ours?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('gives the same receipts and the same state root under our engine and under CometBFT', async () => {
    const underComet = await commitAll(pair!.evmUrl, raws)
    const underOurs = await commitAll(ours!.url, raws)
    expect(underComet.receipts.map((r) => r.status)).toEqual(['0x1', '0x1', '0x1', '0x0'])
    expect(underComet.receipts).toEqual(underOurs.receipts)
    expect(underComet.stateRoot).toBe(underOurs.stateRoot)
  })
})
