/** The backends of a development chain's dev methods, over its application and dev-operation queue. */
import type { EvmApplication } from '../evm/app.js'
import type { DevOpQueue } from '../evm/dev/op-queue.js'
import type { TxPool } from '../txpool/index.js'
import { NodeDevState } from './dev-state.js'
import { NodeImpersonation } from './dev-impersonation.js'
import type { DevRpcBackends } from './evm-rpc.js'

export function createDevRpcBackends(
  app: EvmApplication,
  queue: DevOpQueue,
  pool: TxPool,
): Pick<DevRpcBackends, 'state' | 'header' | 'impersonation'> {
  const state = new NodeDevState(app, queue, pool)
  return { state, header: state, impersonation: new NodeImpersonation(app, queue) }
}
