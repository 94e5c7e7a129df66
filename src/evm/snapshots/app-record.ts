/**
 * Chunk 0 of a snapshot: everything the application keeps beside the state that the next block needs,
 * the same records `EvmApplication` loads when it opens:
 * - the head (height, state root = app hash) and the chain parameters (block gas limit, genesis height,
 *   the evidence age that bounds Commit's retain height);
 * - the validator-admin contract's copy of the validator set after the height;
 * - the EVM blocks of the last BLOCKHASH_WINDOW heights up to the head: the head's header gives the
 *   next block its parentHash and base fee, and BLOCKHASH answers from the others.
 *
 * Encoded as RLP `[height, stateRoot, gasLimit, genesisHeight, evidenceMaxAgeBlocks, [[pubKey, power]...],
 * [blockRecord...]]`,
 * blocks oldest first. The state root is checked against the trusted app hash, the head block against
 * the state root, and each block's hash and parent hash down the chain (`checkAppRecord`).
 */
import { RLP } from '@ethereumjs/rlp'
import type { ValidatorUpdate } from '../../abci/types.js'
import type { Database } from '../../db/database.js'
import { WriteStage } from '../../db/write-stage.js'
import { bigintToBytes, bytesToBigint, equalBytes } from '../../primitives/hex.js'
import { hashHeader } from '../store/block-header.js'
import { decodeBlockRecord, encodeBlockRecord } from '../store/evm-records.js'
import { EvmStore, type ChainParams } from '../store/evm-store.js'
import { stageRestoredHistory } from '../store/history-pruner.js'
import type { EvmBlock } from '../store/views.js'
import { stageValidatorList } from '../validators/validator-registry.js'

/** Heights BLOCKHASH reaches back (the EVM's 256). */
export const BLOCKHASH_WINDOW = 256

export interface AppRecord {
  height: number
  stateRoot: Uint8Array
  params: ChainParams
  validators: ValidatorUpdate[]
  /** Consecutive blocks, oldest first; the last one is the head. */
  blocks: EvmBlock[]
}

export function encodeAppRecord(r: AppRecord): Uint8Array {
  return RLP.encode([
    r.height,
    r.stateRoot,
    r.params.gasLimit,
    r.params.genesisHeight,
    r.params.evidenceMaxAgeBlocks,
    r.validators.map((v) => [v.pubKey, bigintToBytes(v.power)]),
    r.blocks.map(encodeBlockRecord),
  ])
}

/** Decodes chunk 0; throws on a malformed one. */
export function decodeAppRecord(chunk: Uint8Array): AppRecord {
  const f = RLP.decode(chunk)
  if (!Array.isArray(f) || f.length !== 7) throw new Error('malformed application record')
  const [height, stateRoot, gasLimit, genesisHeight, evidenceMaxAge, validators, blocks] = f
  if (
    !(height instanceof Uint8Array) ||
    !(stateRoot instanceof Uint8Array) ||
    !(gasLimit instanceof Uint8Array) ||
    !(genesisHeight instanceof Uint8Array) ||
    !(evidenceMaxAge instanceof Uint8Array) ||
    !Array.isArray(validators) ||
    !Array.isArray(blocks)
  ) {
    throw new Error('malformed application record')
  }
  const h = Number(bytesToBigint(height))
  return {
    height: h,
    stateRoot,
    params: {
      gasLimit: bytesToBigint(gasLimit),
      genesisHeight: Number(bytesToBigint(genesisHeight)),
      evidenceMaxAgeBlocks: bytesToBigint(evidenceMaxAge),
    },
    validators: validators.map((v) => {
      const [pubKey, power] = Array.isArray(v) ? v : []
      if (!(pubKey instanceof Uint8Array) || !(power instanceof Uint8Array)) throw new Error('malformed validator in application record')
      return { pubKey, power: bytesToBigint(power) }
    }),
    blocks: blocks.map((b, i) => {
      if (!(b instanceof Uint8Array)) throw new Error('malformed block in application record')
      return decodeBlockRecord(h - blocks.length + 1 + i, b)
    }),
  }
}

/** Why the record cannot be the application at `height` with app hash `appHash`, or undefined when it can. */
export function checkAppRecord(r: AppRecord, height: number, appHash: Uint8Array): string | undefined {
  if (r.height !== height) return `the record is of height ${r.height}, the snapshot of ${height}`
  if (!equalBytes(r.stateRoot, appHash)) return 'the state root is not the trusted app hash'
  const head = r.blocks.at(-1)
  if (!head || !equalBytes(head.stateRoot, r.stateRoot)) return 'the head block is not of the state root'
  if (r.blocks.length > BLOCKHASH_WINDOW) return 'too many blocks'
  if (r.blocks[0]!.number < r.params.genesisHeight) return 'a block below the genesis height'
  for (let i = 0; i < r.blocks.length; i++) {
    const b = r.blocks[i]!
    if (!equalBytes(hashHeader(b), b.hash)) return `block ${b.number}: its hash is not its header's`
    if (i > 0 && !equalBytes(b.parentHash, r.blocks[i - 1]!.hash)) return `block ${b.number}: its parent hash is not the block before`
  }
  return undefined
}

/** Reads the record of committed height `height` (its validators given: the set after it, read at its Commit). */
export async function readAppRecord(
  db: Database,
  height: number,
  stateRoot: Uint8Array,
  validators: ValidatorUpdate[],
): Promise<AppRecord> {
  const store = new EvmStore(db)
  const params = await store.loadParams()
  if (!params) throw new Error('no chain parameters: the chain was never initialised')
  const blocks: EvmBlock[] = []
  for (let h = Math.max(params.genesisHeight, height - BLOCKHASH_WINDOW + 1); h <= height; h++) {
    const block = await store.getBlock(h)
    if (!block) throw new Error(`EVM block ${h} missing`)
    blocks.push(block)
  }
  return { height, stateRoot, params, validators, blocks }
}

/**
 * Writes a restored record in one batch, the head last in it: the application opens at its height.
 * The blocks are written without their transactions (history before a snapshot is not part of it), and
 * the history base is the height above the snapshot's, in the same batch: a crash leaves the restore
 * whole or not begun.
 */
export async function writeAppRecord(db: Database, r: AppRecord): Promise<void> {
  const stage = new WriteStage((ops) => db.batch(ops))
  const store = new EvmStore(db)
  store.stageParams(stage, r.params)
  for (const block of r.blocks) store.stageBlock(stage, block, [])
  stageValidatorList(stage, r.validators)
  stageRestoredHistory(stage, r.height, r.blocks[0]!.number, r.params.genesisHeight)
  store.stageHead(stage, { height: r.height, stateRoot: r.stateRoot })
  await stage.write()
}
