/** The ERC-20 of the call, transfers, logs and tx-search workloads: deployed by account 0, which gives every other sender a balance. */
import { Interface } from 'ethers'
import { getFees, getNonce, sendAndWait, waitForReceipt } from '../chain.js'
import { compileContracts } from '../../helpers/solidity.js'
import type { BenchContext } from './context.js'

export interface TokenSetup {
  address: string
  abi: Interface
  /** The block of the deployment, whose Transfer log (the mint) is the token's first. */
  deployBlock: number
}

/** Minted to the deployer: 10^12 tokens of 18 decimals. */
const SUPPLY = 10n ** 30n

/** Given to each other sender: 10^9 tokens, far more than any run spends. */
const SENDER_BALANCE = 10n ** 27n

export async function deployToken(ctx: BenchContext): Promise<TokenSetup> {
  const { client, chainId } = ctx
  const { Token } = compileContracts('Token.sol')
  const abi = new Interface(Token!.abi as never)
  const [deployer, ...others] = ctx.accounts.slice(0, ctx.options.senders)
  const fees = await getFees(client)
  let nonce = await getNonce(client, deployer!.address)
  const deployTx = await deployer!.signTransaction({
    type: 2,
    chainId,
    nonce: nonce++,
    gasLimit: 2_000_000n,
    ...fees,
    data: Token!.bytecode + abi.encodeDeploy([SUPPLY]).slice(2),
  })
  const receipt = await sendAndWait(client, deployTx)
  if (receipt.status !== '0x1' || !receipt.contractAddress) throw new Error('token deployment failed')
  const address = receipt.contractAddress
  const hashes: string[] = []
  for (const w of others) {
    const raw = await deployer!.signTransaction({
      type: 2,
      chainId,
      nonce: nonce++,
      gasLimit: 100_000n,
      ...fees,
      to: address,
      data: abi.encodeFunctionData('transfer', [w.address, SENDER_BALANCE]),
    })
    hashes.push(await client.call<string>('eth_sendRawTransaction', [raw]))
  }
  for (const h of hashes) await waitForReceipt(client, h)
  return { address, abi, deployBlock: Number(receipt.blockNumber) }
}
