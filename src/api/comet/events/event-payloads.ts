/**
 * What a subscriber receives for each consensus event (CometBFT `types/events.go`,
 * `types/event_bus.go`; docs/consensus-rpc.md): the `data` member
 * `{type: "tendermint/event/X", value}` in cmtjson, and the flattened `events` map a query is
 * matched against (`tm.event`, plus `tx.hash`/`tx.height` and the tx's events for Tx, and the
 * FinalizeBlock events for NewBlock and NewBlockEvents).
 */
import { hashTx } from '../../../comet/hash.js'
import { addEvent, flattenEvents, type EventMap } from '../../../comet/query/index.js'
import type { ExecTxResult } from '../../../abci/types.js'
import type { ConsensusEventName, ConsensusEvents } from '../../../consensus/events.js'
import { bytesToBase64, bytesToUpperHex } from '../../../primitives/hex.js'
import { encodeConsensusParamUpdates, encodeEvent, encodeExecTxResult, encodeValidatorUpdate } from '../json-abci.js'
import {
  encodeBlock,
  encodeBlockId,
  encodeBytes,
  encodeEvidence,
  encodeHeader,
  encodeHexBytes,
  encodeInt64,
  encodeValidator,
  encodeVote,
} from '../json.js'
import type { Json, JsonObject } from '../wire-json.js'

/** Every event name a subscription can name with `tm.event`. */
export const SUBSCRIBABLE_EVENTS: readonly ConsensusEventName[] = [
  'NewBlock',
  'NewBlockHeader',
  'NewBlockEvents',
  'NewEvidence',
  'Tx',
  'ValidatorSetUpdates',
  'NewRound',
  'NewRoundStep',
  'CompleteProposal',
  'Polka',
  'Lock',
  'Relock',
  'Unlock',
  'ValidBlock',
  'TimeoutPropose',
  'TimeoutWait',
  'Vote',
  'BlockSyncStatus',
  'StateSyncStatus',
]

/** `data.type` of each event: the round-state events share `tendermint/event/RoundState`. */
const DATA_TYPE: Record<ConsensusEventName, string> = {
  NewBlock: 'NewBlock',
  NewBlockHeader: 'NewBlockHeader',
  NewBlockEvents: 'NewBlockEvents',
  NewEvidence: 'NewEvidence',
  Tx: 'Tx',
  ValidatorSetUpdates: 'ValidatorSetUpdates',
  NewRound: 'NewRound',
  CompleteProposal: 'CompleteProposal',
  Vote: 'Vote',
  BlockSyncStatus: 'BlockSyncStatus',
  StateSyncStatus: 'StateSyncStatus',
  NewRoundStep: 'RoundState',
  Polka: 'RoundState',
  Lock: 'RoundState',
  Relock: 'RoundState',
  Unlock: 'RoundState',
  ValidBlock: 'RoundState',
  TimeoutPropose: 'RoundState',
  TimeoutWait: 'RoundState',
}

/** The composite-key map a query is matched against. */
export function eventMapOf<K extends ConsensusEventName>(name: K, payload: ConsensusEvents[K]): EventMap {
  const map: EventMap = new Map([['tm.event', [name]]])
  switch (name) {
    case 'Tx': {
      const tx = payload as ConsensusEvents['Tx']
      addEvent(map, 'tx.hash', bytesToUpperHex(hashTx(tx.tx)))
      addEvent(map, 'tx.height', String(tx.height))
      flattenEvents(tx.result.events, map)
      break
    }
    case 'NewBlock':
      flattenEvents((payload as ConsensusEvents['NewBlock']).response.events, map)
      break
    case 'NewBlockEvents':
      flattenEvents((payload as ConsensusEvents['NewBlockEvents']).events, map)
      break
  }
  return map
}

/** The map as JSON, keys sorted as Go marshals a map. */
export function encodeEventMap(map: EventMap): JsonObject {
  const out: JsonObject = {}
  for (const key of [...map.keys()].sort()) out[key] = [...map.get(key)!]
  return out
}

/** `abci.ExecTxResult` through cmtjson (inside `result_finalize_block`): zero fields omitted. */
function encodeExecTxResultOmitEmpty(r: ExecTxResult): JsonObject {
  return {
    code: r.code === 0 ? undefined : r.code,
    data: r.data.length === 0 ? undefined : bytesToBase64(r.data),
    log: r.log === '' ? undefined : r.log,
    info: r.info === '' ? undefined : r.info,
    gas_wanted: r.gasWanted === 0n ? undefined : encodeInt64(r.gasWanted),
    gas_used: r.gasUsed === 0n ? undefined : encodeInt64(r.gasUsed),
    events: r.events.length === 0 ? undefined : r.events.map((e) => encodeEvent(e)),
    codespace: r.codespace === '' ? undefined : r.codespace,
  }
}

/** `data`: `{type: "tendermint/event/<X>", value}`. */
export function encodeEventData<K extends ConsensusEventName>(name: K, payload: ConsensusEvents[K]): JsonObject {
  return { type: `tendermint/event/${DATA_TYPE[name]}`, value: encodeEventValue(name, payload) }
}

function encodeEventValue<K extends ConsensusEventName>(name: K, payload: ConsensusEvents[K]): Json {
  const p = payload as ConsensusEvents[ConsensusEventName]
  switch (name) {
    case 'NewBlock': {
      const { block, blockId, response } = p as ConsensusEvents['NewBlock']
      return {
        block: encodeBlock(block),
        block_id: encodeBlockId(blockId),
        result_finalize_block: {
          events: response.events.length === 0 ? undefined : response.events.map((e) => encodeEvent(e)),
          tx_results: response.txResults.length === 0 ? undefined : response.txResults.map(encodeExecTxResultOmitEmpty),
          validator_updates: response.validatorUpdates.length === 0 ? null : response.validatorUpdates.map(encodeValidatorUpdate),
          consensus_param_updates: encodeConsensusParamUpdates(response.consensusParamUpdates) ?? undefined,
          app_hash: encodeBytes(response.appHash) ?? undefined,
        },
      }
    }
    case 'NewBlockHeader':
      return { header: encodeHeader((p as ConsensusEvents['NewBlockHeader']).header) }
    case 'NewBlockEvents': {
      const e = p as ConsensusEvents['NewBlockEvents']
      return { height: encodeInt64(e.height), events: e.events.map((ev) => encodeEvent(ev)), num_txs: encodeInt64(e.numTxs) }
    }
    case 'NewEvidence': {
      const e = p as ConsensusEvents['NewEvidence']
      return { height: encodeInt64(e.height), evidence: encodeEvidence(e.evidence) }
    }
    case 'Tx': {
      const t = p as ConsensusEvents['Tx']
      return {
        TxResult: {
          height: encodeInt64(t.height),
          index: t.index === 0 ? undefined : t.index,
          tx: bytesToBase64(t.tx),
          result: encodeExecTxResult(t.result),
        },
      }
    }
    case 'ValidatorSetUpdates':
      return { validator_updates: (p as ConsensusEvents['ValidatorSetUpdates']).validatorUpdates.map(encodeValidator) }
    case 'NewRound': {
      const r = p as ConsensusEvents['NewRound']
      return {
        height: encodeInt64(r.height),
        round: r.round,
        step: r.step,
        proposer: { address: encodeHexBytes(r.proposer.address), index: r.proposer.index },
      }
    }
    case 'CompleteProposal': {
      const r = p as ConsensusEvents['CompleteProposal']
      return { height: encodeInt64(r.height), round: r.round, step: r.step, block_id: encodeBlockId(r.blockId) }
    }
    case 'Vote':
      return { Vote: encodeVote((p as ConsensusEvents['Vote']).vote) }
    case 'BlockSyncStatus':
    case 'StateSyncStatus': {
      const s = p as ConsensusEvents['BlockSyncStatus']
      return { complete: s.complete, height: encodeInt64(s.height) }
    }
    default: {
      const r = p as ConsensusEvents['NewRoundStep']
      return { height: encodeInt64(r.height), round: r.round, step: r.step }
    }
  }
}
