/** What trace-executor.ts and trace-call.ts share: the VM copy a trace runs on and the transaction it runs. */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { RunTxOpts, VM } from '@ethereumjs/vm'
import type { TxStartInfo } from './hooks.js'
import type { HooksAdapter } from './hooks-adapter.js'

/** A VM copy being replayed, with its tracing adapter. */
export interface TraceCopy {
  vm: VM
  adapter: HooksAdapter
  /** Gas used by the transactions run so far (receipts' cumulative gas). */
  gasUsed: bigint
}

/** How one transaction is traced. */
export interface TracedTx {
  tx: TypedTransaction
  block: Block
  info: TxStartInfo
  /** runTx options beyond tx, block and blockGasUsed. */
  runOpts?: Partial<RunTxOpts>
}
