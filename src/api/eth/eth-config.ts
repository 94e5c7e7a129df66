/**
 * eth methods describing the chain's rules and the node's history:
 * - eth_config (EIP-7910): the current fork configuration (evm/fork-config.ts); `next` and `last` are
 *   null, the chain schedules no fork. Map members are sorted by name, as geth's JSON maps are.
 * - eth_capabilities: the head, and for each kind of data the oldest block served and, when the node
 *   deletes older data, the window it keeps (`deleteStrategy`, absent for an archive). State and proofs
 *   follow the state's retention; transactions, receipts, logs and blocks the blocks'.
 */
import { UnknownBlockError } from '../../evm/errors.js'
import type { ForkConfig } from '../../evm/fork-config.js'
import { toQuantity } from '../../primitives/quantity.js'
import { defineMethod, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend, Retention } from './backend.js'
import { encodeData } from './format.js'

export interface ForkConfigJson {
  activationTime: number
  blobSchedule: { baseFeeUpdateFraction: number; max: number; target: number }
  chainId: string
  forkId: string
  precompiles: Record<string, string>
  systemContracts: Record<string, string>
}

export interface ResourceJson {
  disabled: boolean
  oldestBlock: string
  deleteStrategy?: { type: 'window'; retentionBlocks: string }
}

/** Name → address entries as a JSON object, sorted by name. */
function addressMap(entries: [string, Uint8Array][]): Record<string, string> {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(sorted.map(([name, address]) => [name, encodeData(address)]))
}

export function formatForkConfig(config: ForkConfig): ForkConfigJson {
  return {
    activationTime: config.activationTime,
    blobSchedule: { ...config.blobSchedule },
    chainId: toQuantity(config.chainId),
    forkId: encodeData(config.forkId),
    precompiles: addressMap(config.precompiles),
    systemContracts: addressMap(config.systemContracts),
  }
}

function formatResource(retention: Retention): ResourceJson {
  const out: ResourceJson = { disabled: false, oldestBlock: toQuantity(retention.oldestBlock) }
  if (retention.retentionBlocks !== undefined)
    out.deleteStrategy = { type: 'window', retentionBlocks: toQuantity(retention.retentionBlocks) }
  return out
}

export function createEthConfigMethods(backend: EthBackend): MethodTable {
  return [
    defineMethod('eth_config', [], async () => ({ current: formatForkConfig(await backend.forkConfig()), next: null, last: null })),
    defineMethod('eth_capabilities', [], async () => {
      const head = await backend.getBlockByNumber(backend.latestHeight())
      if (head === undefined) throw new UnknownBlockError()
      const { state, blocks } = backend.historyRetention()
      const stateJson = formatResource(state)
      const blocksJson = formatResource(blocks)
      return {
        head: { number: toQuantity(head.number), hash: encodeData(head.hash) },
        state: stateJson,
        tx: blocksJson,
        logs: blocksJson,
        receipts: blocksJson,
        blocks: blocksJson,
        stateproofs: stateJson,
      }
    }),
  ]
}
