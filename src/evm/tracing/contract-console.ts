/**
 * Contract `console.log` on a dev chain (docs/dev-chain.md, "Contract console.log"): the calls the
 * consensus VM's transactions make to the console address are decoded (console-abi.ts) and logged with
 * the hash of the transaction they came from. It listens to the EVM's `beforeMessage` event with a
 * one-parameter listener, which ethereumjs calls synchronously and never awaits: the listener reads the
 * message and changes nothing, so gas, state and results are those of a VM without it. The copies that
 * serve eth_call, estimateGas and traces are other VMs and print nothing.
 */
import type { Message } from '@ethereumjs/evm'
import type { VM } from '@ethereumjs/vm'
import { equalBytes } from '../../primitives/hex.js'
import type { Logger } from '../../utils/logger.js'
import type { DecodedTx } from '../txs/tx.js'
import { CONSOLE_ADDRESS, decodeConsoleCall } from './console-abi.js'

export class ContractConsole {
  /** Whether calls are printed (anvil_setLoggingEnabled); on from the start, as Anvil and Hardhat. */
  enabled = true
  private tx: DecodedTx | undefined

  constructor(private readonly log: Logger) {}

  /** Listens to `vm`'s messages (the consensus VM, once). */
  attach(vm: VM): void {
    vm.evm.events?.on('beforeMessage', (message: Message) => this.onMessage(message))
  }

  /** The transaction the next messages belong to (the block executor calls it before each one). */
  readonly beginTx = (tx: DecodedTx): void => {
    this.tx = tx
  }

  private onMessage(message: Message): void {
    if (!this.enabled || message.to === undefined || !equalBytes(message.to.bytes, CONSOLE_ADDRESS)) return
    const text = decodeConsoleCall(message.data)
    if (text !== undefined) this.log.info('console.log', { tx: this.tx?.hashHex, text })
  }
}
