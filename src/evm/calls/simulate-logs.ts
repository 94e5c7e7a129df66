/**
 * The logs of one simulated call, as geth's simulation log tracer collects them: each frame's logs are
 * kept with the frame and handed to its parent when it returns, dropped when it fails; with
 * `traceTransfers`, every frame that moves ether (any but DELEGATECALL, a SELFDESTRUCT's balance
 * included) first records an ERC-7528 `Transfer(from, to, value)` log from the pseudo-address
 * 0xEeee…EEeE, in execution order with the contracts' own logs.
 */
import { keccak256 } from '../../crypto/index.js'
import { bigintToBytes, hexToBytes } from '../../primitives/hex.js'
import type { RawLog } from '../executor.js'
import type { FrameEnter, FrameExit, LogEvent, Tracer } from '../tracing/hooks.js'

/** ERC-7528: the address that stands for ether in token-style events. */
const ETH_TRANSFER_ADDRESS = hexToBytes('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee')
/** The topic of ERC-20's `Transfer(address,address,uint256)` event. */
const TRANSFER_TOPIC = keccak256(new TextEncoder().encode('Transfer(address,address,uint256)'))

/** An address as a 32-byte topic. */
function addressTopic(address: Uint8Array): Uint8Array {
  const topic = new Uint8Array(32)
  topic.set(address, 12)
  return topic
}

/** Collects one call's logs; `result()` after the call. */
export class SimulatedLogs implements Tracer {
  private frames: RawLog[][] = []
  private collected: RawLog[] = []

  constructor(private readonly traceTransfers: boolean) {}

  onEnter(frame: FrameEnter): void {
    const logs: RawLog[] = []
    if (this.traceTransfers && frame.type !== 'DELEGATECALL' && frame.value > 0n) {
      logs.push({
        address: ETH_TRANSFER_ADDRESS,
        topics: [TRANSFER_TOPIC, addressTopic(frame.from), addressTopic(frame.to)],
        data: bigintToBytes(frame.value, 32),
      })
    }
    this.frames.push(logs)
  }

  onExit(frame: FrameExit): void {
    const logs = this.frames.pop() ?? []
    if (frame.error !== undefined) return
    const parent = this.frames.at(-1)
    if (parent) parent.push(...logs)
    else this.collected = logs
  }

  onLog(log: LogEvent): void {
    this.frames.at(-1)?.push({ address: log.address, topics: log.topics, data: log.data })
  }

  /** The logs of the call (none when it failed). */
  result(): RawLog[] {
    return this.collected
  }
}
