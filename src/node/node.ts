/**
 * The composition root (STYLE.md rule 1): the only place that constructs components and wires them:
 * database → chain → txpool → consensus → api → servers; `stop()` tears down in reverse, idempotently.
 */
import type { NodeConfig } from '../config/node-config.js'
import type { Logger } from '../utils/logger.js'

/** Addresses the running node listens on (ports resolved when 0 was asked). */
export interface NodeAddresses {
  /** e.g. http://127.0.0.1:8545, undefined when the HTTP JSON-RPC is disabled. */
  jsonRpcHttp: string | undefined
  /** e.g. ws://127.0.0.1:8546, undefined when disabled. */
  jsonRpcWs: string | undefined
  /** e.g. tcp://127.0.0.1:26657, undefined when disabled. */
  cometRpc: string | undefined
}

export class Node {
  private constructor(readonly config: NodeConfig, private readonly log: Logger) {}

  /** Builds every component from the resolved configuration (opens the database, replays the WAL). */
  static async create(config: NodeConfig, log: Logger): Promise<Node> {
    return new Node(config, log)
  }

  /** Starts consensus and the RPC listeners. */
  async start(): Promise<NodeAddresses> {
    throw new Error('not implemented')
  }

  /** Stops accepting requests, finishes the current height's write, closes the database. Idempotent. */
  async stop(): Promise<void> {
    throw new Error('not implemented')
  }
}
