/** The backend of anvil_nodeInfo and anvil_metadata/hardhat_metadata (api/dev/node-info.ts) over the application. */
import { randomBytes } from 'node:crypto'
import { formatClientVersion } from '../api/eth/web3.js'
import type { DevNodeInfoBackend, SnapshotEntry } from '../api/dev/node-info-backend.js'
import type { ClientIdentity } from '../config/node-config.js'
import type { EvmApplication } from '../evm/app.js'
import type { EvmBlock } from '../evm/store/views.js'
import { suggestGasTipCap } from './eth-backend.js'
import { NODECTL_VERSION } from './version.js'

/** Bytes of an instance id (a B256, as Anvil's). */
const INSTANCE_ID_BYTES = 32

export class DevNodeInfo implements DevNodeInfoBackend {
  readonly clientVersion: string
  readonly instanceId: Uint8Array = randomBytes(INSTANCE_ID_BYTES)
  /** The chain runs Cancun's rules (evm/common.ts). */
  readonly hardFork = 'Cancun'

  constructor(
    private readonly app: EvmApplication,
    /** The snapshots of the dev chain's snapshot backend. */
    readonly snapshots: () => readonly SnapshotEntry[],
    identity: ClientIdentity,
  ) {
    this.clientVersion = formatClientVersion(NODECTL_VERSION, identity)
  }

  get chainId(): bigint {
    return this.app.evmChainId
  }

  async latestBlock(): Promise<EvmBlock> {
    const block = await this.app.getBlock(this.app.latestHeight())
    if (block === undefined) throw new Error(`EVM block ${this.app.latestHeight()} missing`)
    return block
  }

  nextBaseFee(): bigint {
    return this.app.nextBaseFee()
  }

  blockGasLimit(): bigint {
    return this.app.nextBlockGasLimit()
  }

  /** eth_gasPrice's answer: the latest block's base fee plus the suggested tip. */
  async gasPrice(): Promise<bigint> {
    return (await this.latestBlock()).baseFeePerGas + suggestGasTipCap(this.app)
  }
}
