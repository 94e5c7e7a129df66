/**
 * The dev methods of a development chain (`nodectl start --dev`): the `evm`, `anvil` and `hardhat`
 * namespaces and eth_sendUnsignedTransaction, one file per topic, each over its own backend interface.
 * On a node that is not a dev chain every one of them answers -32601 saying so (dev-only.ts).
 */
import type { MethodTable } from '../../rpc/method-table.js'
import { createDevImpersonationMethods, type ImpersonatedSender } from './impersonation.js'
import type { DevHeaderBackend, DevStateBackend } from './state-backend.js'
import { createDevStateMethods } from './state.js'
import { refuseOutsideDev } from './dev-only.js'

export type { DevHeaderBackend, DevHeaderOverrides, DevStateBackend } from './state-backend.js'
export type { ImpersonationBackend } from './impersonation-backend.js'
export { ImpersonatedSender } from './impersonation.js'

export interface DevBackends {
  state: DevStateBackend
  header: DevHeaderBackend
  impersonation: ImpersonatedSender
}

/** The dev tables over the node's backends; without backends (not a dev chain), the same names refused. */
export function createDevApi(backends: DevBackends | undefined): MethodTable[] {
  if (!backends) return refuseOutsideDev(createDevApi(DEV_ONLY_PLACEHOLDER))
  return [createDevStateMethods(backends.state, backends.header), createDevImpersonationMethods(backends.impersonation)]
}

/** Backends never called: the tables are built only for their method names. */
const DEV_ONLY_PLACEHOLDER: DevBackends = {
  state: undefined as never,
  header: undefined as never,
  impersonation: { backend: undefined } as never,
}
