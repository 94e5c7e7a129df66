/**
 * The dev namespaces `evm`, `anvil` and `hardhat` and eth_sendUnsignedTransaction (docs/dev-chain.md):
 * the methods test suites call on a development node (Anvil's names and their aliases), each topic in
 * its own file over its own narrow backend interface. A `--dev` node serves `createDevApi`; every other
 * node serves `createDevRefusals`, the same names answering -32601 with the reason.
 */
import type { MethodTable } from '../../rpc/method-table.js'
import { createDevImpersonationMethods, type ImpersonatedSender } from './impersonation.js'
import type { DevLoggingBackend } from './logging-backend.js'
import { createLoggingMethods } from './logging.js'
import type { MiningBackend } from './mining-backend.js'
import { createMiningMethods } from './mining.js'
import type { DevNodeInfoBackend } from './node-info-backend.js'
import { createNodeInfoMethods } from './node-info.js'
import type { DevPoolBackend } from './pool-backend.js'
import { createPoolMethods } from './pool.js'
import { refuseOutsideDev } from './refusal.js'
import type { SnapshotBackend } from './snapshot-backend.js'
import { createSnapshotMethods } from './snapshots.js'
import type { DevHeaderBackend, DevStateBackend } from './state-backend.js'
import { createDevStateMethods } from './state.js'

export type { DevHeaderBackend, DevHeaderOverrides, DevStateBackend, NonceRule } from './state-backend.js'
export type { ImpersonationBackend } from './impersonation-backend.js'
export { ImpersonatedSender } from './impersonation.js'
export type { DevLoggingBackend } from './logging-backend.js'
export type { MiningBackend } from './mining-backend.js'
export { MAX_MINE_BLOCKS } from './mining.js'
export type { DevNodeInfoBackend, SnapshotEntry } from './node-info-backend.js'
export type { DevPoolBackend } from './pool-backend.js'
export { notDevChainError } from './refusal.js'
export type { SnapshotBackend } from './snapshot-backend.js'

/** The namespaces of the dev methods (served with `--dev`; refused elsewhere). */
export const DEV_NAMESPACES = ['evm', 'anvil', 'hardhat'] as const

/** What the dev methods need from the node: one backend per topic. */
export interface DevBackends {
  state: DevStateBackend
  header: DevHeaderBackend
  impersonation: ImpersonatedSender
  mining: MiningBackend
  snapshots: SnapshotBackend
  pool: DevPoolBackend
  logging: DevLoggingBackend
  nodeInfo: DevNodeInfoBackend
}

/** Every table of the dev namespaces over the node's backends. */
export function createDevApi(backends: DevBackends): MethodTable[] {
  return [
    createDevStateMethods(backends.state, backends.header),
    createDevImpersonationMethods(backends.impersonation),
    createMiningMethods(backends.mining),
    createSnapshotMethods(backends.snapshots),
    createPoolMethods(backends.pool),
    createLoggingMethods(backends.logging),
    createNodeInfoMethods(backends.nodeInfo),
  ]
}

/**
 * The tables' names for a node that is not a dev chain. Built over no backends: the refusal replaces
 * every handler, so none of them ever reaches a backend.
 */
export function createDevRefusals(): MethodTable[] {
  return createDevApi({} as DevBackends).map(refuseOutsideDev)
}
