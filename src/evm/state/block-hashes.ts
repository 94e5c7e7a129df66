/**
 * The `blockchain` object the EVM asks for BLOCKHASH (`EVMMockBlockchainInterface`): `getBlock(n).hash()`
 * is the EVM view's hash of height n: keccak256 of its Ethereum header (store/block-header.ts), as
 * eth_getBlockByNumber shows it.
 * Unknown heights give the zero hash. Shared by the consensus VM and every RPC copy.
 */
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import type { EvmStore } from '../store/evm-store.js'

const ZERO_HASH = new Uint8Array(32)

export class BlockHashes implements EVMMockBlockchainInterface {
  constructor(private readonly store: EvmStore) {}

  async getBlock(height: number): Promise<{ hash(): Uint8Array }> {
    const block = await this.store.getBlock(height)
    const hash = block?.hash ?? ZERO_HASH
    return { hash: () => hash }
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): EVMMockBlockchainInterface {
    return this
  }
}
