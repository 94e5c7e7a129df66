import type { EvmBlock } from '../../evm/store/views.js'

/** A snapshot as anvil_metadata lists it: the height it returns to and that block's hash. */
export interface SnapshotEntry {
  id: bigint
  height: number
  hash: Uint8Array
}

/** What anvil_nodeInfo and anvil_metadata/hardhat_metadata need from the node. */
export interface DevNodeInfoBackend {
  /** web3_clientVersion's answer. */
  readonly clientVersion: string
  readonly chainId: bigint
  /** Random per node process (Anvil and Hardhat: a new one when the node starts), 32 bytes. */
  readonly instanceId: Uint8Array
  /** The rules the chain runs, by the name Anvil gives them ("Cancun"). */
  readonly hardFork: string
  /** The newest committed block. */
  latestBlock(): Promise<EvmBlock>
  /** Base fee of the next block, wei. */
  nextBaseFee(): bigint
  /** The block gas limit. */
  blockGasLimit(): bigint
  /** eth_gasPrice's answer, wei. */
  gasPrice(): Promise<bigint>
  /** The snapshots evm_revert can return to, oldest first. */
  snapshots(): readonly SnapshotEntry[]
}
