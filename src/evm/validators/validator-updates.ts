/**
 * The validator updates of an executed block: the setValidator calls of its successful transactions
 * to the validator-admin system contract, in execution order. Reading them from the executed
 * transactions (not from what the precompile saw) means a call whose transaction failed can never
 * reach consensus.
 */
import type { ValidatorUpdate } from '../../abci/types.js'
import type { BlockExecution } from '../executor.js'
import { VALIDATOR_ADMIN_ADDRESS, decodeSetValidator } from './validator-admin.js'
import { bytesToHex } from '../../primitives/hex.js'

const ADMIN_HEX = bytesToHex(VALIDATOR_ADMIN_ADDRESS)

/** The setValidator updates of the block's successful transactions, in order. */
export function collectValidatorUpdates(exec: BlockExecution): ValidatorUpdate[] {
  const updates: ValidatorUpdate[] = []
  for (const e of exec.executed) {
    if (e.status !== 1 || e.tx.to !== ADMIN_HEX) continue
    const call = decodeSetValidator(e.tx.tx.data)
    if (typeof call !== 'string') updates.push({ pubKey: call.pubKey, power: call.power })
  }
  return updates
}
