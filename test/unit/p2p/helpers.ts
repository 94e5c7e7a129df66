/** P2P hosts on 127.0.0.1 port 0 for tests, and a logger whose lines can be awaited. */
import { keyFromSeed, type ValidatorKey } from '../../../src/keystore/validator-key.js'
import { P2PNode, type P2PEvents, type P2PNodeOptions } from '../../../src/p2p/p2p-node.js'
import type { Logger } from '../../../src/utils/logger.js'

export const TEST_CHAIN_ID = 'nodectl_31337-1'

/** Deterministic node keys: seed = 32 bytes of value 100+i (apart from the consensus tests' validator keys). */
export function makeNodeKey(i: number): ValidatorKey {
  return keyFromSeed(new Uint8Array(32).fill(100 + i))
}

export interface LogLine {
  level: string
  msg: string
  ctx: Record<string, unknown>
}

/** A logger that records every line and lets a test await the first line that matches. */
export function awaitableLogger(): { logger: Logger; lines: LogLine[]; next(match: (l: LogLine) => boolean): Promise<LogLine> } {
  const lines: LogLine[] = []
  const waiters = new Set<{ match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }>()
  const push = (line: LogLine): void => {
    lines.push(line)
    for (const w of [...waiters])
      if (w.match(line)) {
        waiters.delete(w)
        w.resolve(line)
      }
  }
  const make = (fields: Record<string, unknown>): Logger => ({
    debug: (msg, ctx) => push({ level: 'debug', msg, ctx: { ...fields, ...ctx } }),
    info: (msg, ctx) => push({ level: 'info', msg, ctx: { ...fields, ...ctx } }),
    warn: (msg, ctx) => push({ level: 'warn', msg, ctx: { ...fields, ...ctx } }),
    error: (msg, ctx) => push({ level: 'error', msg, ctx: { ...fields, ...ctx } }),
    child: (f) => make({ ...fields, ...f }),
  })
  return {
    logger: make({}),
    lines,
    next: (match) => {
      const seen = lines.find(match)
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.add({ match, resolve }))
    },
  }
}

/** The next `name` event of `node`. */
export function nextP2PEvent<K extends keyof P2PEvents>(node: P2PNode, name: K): Promise<P2PEvents[K]> {
  return new Promise((resolve) => {
    const off = node.events.on(name, (e) => {
      off()
      resolve(e)
    })
  })
}

export interface TestHostOptions extends Partial<Omit<P2PNodeOptions, 'nodeInfo'>> {
  key: ValidatorKey
  chainId?: string
  genesisHash?: string
}

/** A host on 127.0.0.1:0 (not started). */
export function makeHost(opts: TestHostOptions): P2PNode {
  const { key, chainId, genesisHash, ...rest } = opts
  return new P2PNode({
    nodeKey: key,
    listen: { host: '127.0.0.1', port: 0 },
    nodeInfo: { network: chainId ?? TEST_CHAIN_ID, genesisHash: genesisHash ?? 'aa', moniker: 'test', version: '0.1.0' },
    logger: awaitableLogger().logger,
    ...rest,
  })
}

/** `<node id>@127.0.0.1:<port>` of a started host. */
export function peerAddressOf(node: P2PNode): string {
  return `${node.nodeId}@127.0.0.1:${node.listenPort}`
}
