/**
 * CometBFT's `consensus` series (`consensus/metrics.go`): the committed height and its block, the
 * validator set, who signed the last commit, evidence, and how long rounds and steps take. Gauges of
 * state are read at scrape time; what happens once per block or step is recorded from the node's events.
 */
import { BlockIDFlag } from '../../abci/types.js'
import type { BlockStore } from '../../comet/block-store.js'
import type { Block } from '../../comet/types.js'
import type { ConsensusEngine } from '../../consensus/consensus-engine.js'
import type { ConsensusEvents } from '../../consensus/events.js'
import { bytesToUpperHex, equalBytes } from '../../primitives/hex.js'
import type { TypedEmitter } from '../../utils/events.js'
import type { Logger } from '../../utils/logger.js'
import { toNanos } from '../../utils/time.js'
import { exponentialBucketsRange, type CometSeries } from './comet-series.js'

const SUBSYSTEM = 'consensus'

/** Prometheus' default buckets (`prometheus.DefBuckets`), which CometBFT's block interval histogram keeps. */
const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** CometBFT's round and step histograms: 8 buckets from 0.1 s to 100 s (`buckettype=exprange`). */
const ROUND_BUCKETS = exponentialBucketsRange(0.1, 100, 8)

export interface ConsensusMetricsSources {
  engine: Pick<ConsensusEngine, 'height' | 'getState' | 'getValidators' | 'validatorAddress'>
  blockStore: Pick<BlockStore, 'loadBlockMeta'>
  events: TypedEmitter<ConsensusEvents>
}

/** Registers the series and starts listening; returns what stops the listening. */
export function watchConsensus(series: CometSeries, { engine, blockStore, events }: ConsensusMetricsSources, log: Logger): () => void {
  const g = (name: string, help: string, read?: () => number | undefined) => series.gauge(SUBSYSTEM, name, help, read)
  const committedValidators = () => {
    try {
      const state = engine.getState()
      return state.lastBlockHeight > 0 ? state.lastValidators : state.validators
    } catch {
      return undefined // consensus not started yet
    }
  }
  g('height', 'Height of the chain.', () => engine.height)
  g('latest_block_height', 'The latest block height.', () => engine.height)
  g('validators', 'Number of validators.', () => committedValidators()?.size)
  g('validators_power', 'Total power of all validators.', () => {
    const set = committedValidators()
    return set && Number(set.totalVotingPower())
  })
  const validatorPower = series.labelledGauge(SUBSYSTEM, 'validator_power', 'Power of a validator.', ['validator_address'])
  const lastSigned = series.labelledGauge(SUBSYSTEM, 'validator_last_signed_height', 'Last height signed by this validator.', [
    'validator_address',
  ])
  const missedBlocks = series.labelledGauge(SUBSYSTEM, 'validator_missed_blocks', 'Total missed blocks for a validator.', [
    'validator_address',
  ])
  const missing = g('missing_validators', 'Number of validators who did not sign.')
  const missingPower = g('missing_validators_power', 'Total power of the missing validators.')
  const byzantine = g('byzantine_validators', 'Number of validators who tried to double sign.')
  const byzantinePower = g('byzantine_validators_power', 'Total power of the byzantine validators.')
  const rounds = g('rounds', 'Number of rounds.')
  const numTxs = g('num_txs', 'Number of transactions.')
  const totalTxs = g('total_txs', 'Total number of transactions.')
  const blockSize = g('block_size_bytes', 'Size of the block.')
  const chainSize = series.counter(SUBSYSTEM, 'chain_size_bytes', 'Size of the chain in bytes.')
  const blockInterval = series.histogram(SUBSYSTEM, 'block_interval_seconds', 'Time between this and the last block.', DEFAULT_BUCKETS)
  const roundDuration = series.histogram(SUBSYSTEM, 'round_duration_seconds', 'Histogram of round duration.', ROUND_BUCKETS)
  // CometBFT counts these in its `state` package, where blocks are applied.
  const validatorSetUpdates = series.counter(
    'state',
    'validator_set_updates',
    'Number of validator set updates returned by the application.',
  )
  const paramUpdates = series.counter(
    'state',
    'consensus_param_updates',
    'Number of consensus parameter updates returned by the application.',
  )
  const stepDuration = series.labelledHistogram(
    SUBSYSTEM,
    'step_duration_seconds',
    'Histogram of durations for each step in the consensus protocol.',
    ['step'],
    ROUND_BUCKETS,
  )

  let lastBlockTime: bigint | undefined
  let totalTxsSoFar = 0
  /** Records what a committed block says: its size and interval, who signed its last commit, its evidence. */
  const recordBlock = async (block: Block): Promise<void> => {
    const { height, time } = block.header
    numTxs.set(block.txs.length)
    totalTxsSoFar += block.txs.length
    totalTxs.set(totalTxsSoFar)
    const [meta, previous, signers] = await Promise.all([
      blockStore.loadBlockMeta(height),
      lastBlockTime === undefined && height > 1 ? blockStore.loadBlockMeta(height - 1) : undefined,
      height > 1 ? engine.getValidators(height - 1) : undefined,
    ])
    if (meta) {
      blockSize.set(meta.blockSize)
      chainSize.inc(meta.blockSize)
    }
    const before = lastBlockTime ?? (previous && toNanos(previous.header.time))
    lastBlockTime = toNanos(time)
    if (before !== undefined) blockInterval.observe(Number(lastBlockTime - before) / 1e9)
    byzantine.set(block.evidence.length)
    byzantinePower.set(Number(block.evidence.reduce((sum, ev) => sum + ev.validatorPower, 0n)))
    if (!signers) return
    let absent = 0
    let absentPower = 0n
    const ours = engine.validatorAddress
    signers.validators.forEach((validator, i) => {
      const signed = block.lastCommit.signatures[i]?.blockIdFlag !== BlockIDFlag.Absent
      if (!signed) {
        absent++
        absentPower += validator.votingPower
      }
      if (ours === undefined || !equalBytes(validator.address, ours)) return
      const labels = { chain_id: series.chainId, validator_address: bytesToUpperHex(ours) }
      validatorPower.set(labels, Number(validator.votingPower))
      if (signed) lastSigned.set(labels, height - 1)
      else missedBlocks.inc(labels)
    })
    missing.set(absent)
    missingPower.set(Number(absentPower))
  }
  let roundStart: number | undefined
  let step: { name: string; since: number } | undefined
  const offs = [
    events.on('NewBlock', ({ block, response }) => {
      if (response.validatorUpdates.length > 0) validatorSetUpdates.inc()
      if (response.consensusParamUpdates !== undefined) paramUpdates.inc()
      recordBlock(block).catch((err: unknown) => log.debug('cannot record the block metrics', { height: block.header.height, err }))
    }),
    events.on('NewRound', ({ round }) => {
      const now = performance.now()
      if (roundStart !== undefined) roundDuration.observe((now - roundStart) / 1000)
      roundStart = now
      rounds.set(round)
    }),
    events.on('NewRoundStep', ({ step: name }) => {
      const now = performance.now()
      if (step) stepDuration.observe({ chain_id: series.chainId, step: step.name }, (now - step.since) / 1000)
      step = { name, since: now }
    }),
  ]
  return () => {
    for (const off of offs) off()
  }
}
