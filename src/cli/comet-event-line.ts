/**
 * The one-line rendering of a consensus event pushed to `subscribe` (`nodectl subscribe events`):
 * the event name (`tm.event`), then its key facts as `key=value` — height/round/step for the
 * consensus steps, hashes and counts for blocks, the consensus and EVM hashes for txs. Payloads are
 * CometBFT's `types/events.go` ones (docs/consensus-rpc.md).
 */
import { evmHashOf } from './comet-render.js'
import type { CometBlock, CometBlockId, CometEventMessage, CometExecTxResult, CometHeader } from './comet-types.js'

/** Prefix of every `data.type` (`tendermint/event/NewBlock`). */
const DATA_TYPE_PREFIX = 'tendermint/event/'

/** `SignedMsgType` of a vote (CometBFT `types/signed_msg_type.go`). */
const VOTE_TYPES: Record<number, string> = { 1: 'prevote', 2: 'precommit' }

/** The event's name: its `tm.event`, else its `data.type` without the prefix. */
export function eventNameOf(msg: CometEventMessage): string {
  return msg.events?.['tm.event']?.[0] ?? msg.data.type.replace(DATA_TYPE_PREFIX, '')
}

/** `name k1=v1 k2=v2`, leaving out undefined and empty values. */
function line(name: string, facts: [string, unknown][]): string {
  const shown = facts
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
  return [name, ...shown].join(' ')
}

type Value = Record<string, unknown>

function describeBlock(name: string, v: { block: CometBlock; block_id: CometBlockId }): string {
  const h = v.block.header
  return line(name, [
    ['height', h.height],
    ['hash', v.block_id.hash],
    ['txs', v.block.data.txs?.length ?? 0],
    ['time', h.time],
    ['proposer', h.proposer_address],
  ])
}

function describeHeader(name: string, h: CometHeader): string {
  return line(name, [
    ['height', h.height],
    ['time', h.time],
    ['app_hash', h.app_hash],
    ['proposer', h.proposer_address],
  ])
}

function describeTx(
  name: string,
  msg: CometEventMessage,
  v: { TxResult: { height: string; index?: number; result: CometExecTxResult } },
): string {
  const r = v.TxResult.result
  const failed = (r.code ?? 0) !== 0
  return line(name, [
    ['height', v.TxResult.height],
    ['index', v.TxResult.index ?? 0],
    ['hash', msg.events?.['tx.hash']?.[0]],
    ['evm', evmHashOf(r)],
    ['code', r.code ?? 0],
    ['gas_used', r.gas_used ?? '0'],
    ['log', failed ? r.log : undefined],
  ])
}

function describeVote(
  name: string,
  vote: { type: number; height: string; round: number; block_id: CometBlockId; validator_address: string; validator_index: number },
): string {
  return line(name, [
    ['type', VOTE_TYPES[vote.type] ?? vote.type],
    ['height', vote.height],
    ['round', vote.round],
    ['validator', `${vote.validator_address}#${vote.validator_index}`],
    ['block', vote.block_id.hash || 'nil'],
  ])
}

/** The one-line rendering of an event (see the file comment). */
export function describeEventLine(msg: CometEventMessage): string {
  const name = eventNameOf(msg)
  const v = (msg.data.value ?? {}) as Value
  switch (msg.data.type.replace(DATA_TYPE_PREFIX, '')) {
    case 'NewBlock':
      return describeBlock(name, v as unknown as { block: CometBlock; block_id: CometBlockId })
    case 'NewBlockHeader':
      return describeHeader(name, v.header as CometHeader)
    case 'NewBlockEvents':
      return line(name, [
        ['height', v.height],
        ['txs', v.num_txs],
        ['events', ((v.events as { type: string }[] | undefined) ?? []).map((e) => e.type).join(',')],
      ])
    case 'Tx':
      return describeTx(name, msg, v as unknown as Parameters<typeof describeTx>[2])
    case 'Vote':
      return describeVote(name, v.Vote as Parameters<typeof describeVote>[1])
    case 'NewRound':
      return line(name, [
        ['height', v.height],
        ['round', v.round],
        ['step', v.step],
        ['proposer', (v.proposer as { address?: string } | undefined)?.address],
      ])
    case 'CompleteProposal':
      return line(name, [
        ['height', v.height],
        ['round', v.round],
        ['step', v.step],
        ['block', (v.block_id as CometBlockId | undefined)?.hash],
      ])
    case 'RoundState':
      return line(name, [
        ['height', v.height],
        ['round', v.round],
        ['step', v.step],
      ])
    case 'ValidatorSetUpdates': {
      const updates = (v.validator_updates as { address: string; voting_power: string }[] | undefined) ?? []
      return line(name, [['validators', updates.map((u) => `${u.address}:${u.voting_power}`).join(',')]])
    }
    default:
      return line(name, [['value', v]])
  }
}
