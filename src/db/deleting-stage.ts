/**
 * A stage that turns each write into a deletion in another stage: handed to an owner's own staging
 * code (the event indexer's `stageBlock`), it removes exactly the keys that code wrote for a height,
 * without a second description of the key layout to keep in step (a dev chain's revert).
 */
import { WriteStage } from './write-stage.js'

type Bytes = Uint8Array

export class DeletingStage extends WriteStage {
  /** `keep`: the keys to leave in place (none by default). */
  constructor(
    private readonly target: WriteStage,
    private readonly keep: (key: Bytes) => boolean = () => false,
  ) {
    super(() => Promise.reject(new Error('a DeletingStage is never written: its target is')))
  }

  override put(key: Bytes): void {
    if (!this.keep(key)) this.target.del(key)
  }

  override append(key: Bytes): void {
    if (!this.keep(key)) this.target.del(key)
  }
}
