/** A signed EIP-1559 value transfer on a dev chain (chain id 31337), as the crash tests send them. */
import type { Wallet } from 'ethers'

/** `value` wei from `wallet` to `to` at `nonce`: 21,000 gas, 100 gwei fee cap, 1 gwei tip. */
export function signDevTransfer(wallet: Wallet, nonce: number, to: string, value: bigint): Promise<string> {
  return wallet.signTransaction({
    type: 2,
    chainId: 31337n,
    nonce,
    gasLimit: 21000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
    to,
    value,
  })
}
