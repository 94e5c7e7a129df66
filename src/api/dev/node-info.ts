/**
 * What the node is (docs/dev-chain.md, "Node information"), in the shapes of the nodes whose names the
 * methods carry:
 * - anvil_nodeInfo: Anvil's `NodeInfo`: `currentBlockNumber` (QUANTITY), `currentBlockTimestamp` (a JSON
 *   number), `currentBlockHash`, `hardFork`, `transactionOrder` ("fees": the pool orders by tip),
 *   `environment {baseFee, chainId (number), gasLimit, gasPrice}` (QUANTITY but chainId), `forkConfig`
 *   (every field null: a dev chain forks nothing);
 * - anvil_metadata: Anvil's `Metadata`: `clientVersion`, `chainId`, `instanceId`, `latestBlockNumber` and
 *   `latestBlockHash` (numbers as JSON numbers), `forkedNetwork` null, `snapshots` {id: [height, hash]};
 * - hardhat_metadata: Hardhat's: the same without `snapshots`, and `forkedNetwork` left out when not forked.
 */
import { bytesToHex } from '../../primitives/hex.js'
import { toQuantity } from '../../primitives/quantity.js'
import { defineMethod, type MethodTable } from '../../rpc/method-table.js'
import type { DevNodeInfoBackend } from './node-info-backend.js'

/** How Anvil names the pool's order when it sorts by tip. */
const TRANSACTION_ORDER = 'fees'

export function createNodeInfoMethods(backend: DevNodeInfoBackend): MethodTable {
  const metadata = async () => {
    const latest = await backend.latestBlock()
    return {
      clientVersion: backend.clientVersion,
      chainId: Number(backend.chainId),
      instanceId: bytesToHex(backend.instanceId),
      latestBlockNumber: latest.number,
      latestBlockHash: bytesToHex(latest.hash),
    }
  }
  return [
    defineMethod('anvil_nodeInfo', [], async () => {
      const latest = await backend.latestBlock()
      return {
        currentBlockNumber: toQuantity(latest.number),
        currentBlockTimestamp: latest.timestamp,
        currentBlockHash: bytesToHex(latest.hash),
        hardFork: backend.hardFork,
        transactionOrder: TRANSACTION_ORDER,
        environment: {
          baseFee: toQuantity(backend.nextBaseFee()),
          chainId: Number(backend.chainId),
          gasLimit: toQuantity(backend.blockGasLimit()),
          gasPrice: toQuantity(await backend.gasPrice()),
        },
        forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
      }
    }),
    defineMethod('anvil_metadata', [], async () => {
      const snapshots: Record<string, [number, string]> = {}
      for (const s of backend.snapshots()) snapshots[toQuantity(s.id)] = [s.height, bytesToHex(s.hash)]
      return { ...(await metadata()), forkedNetwork: null, snapshots }
    }),
    defineMethod('hardhat_metadata', [], metadata),
  ]
}
