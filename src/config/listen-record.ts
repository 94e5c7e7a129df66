/**
 * Where a running node actually listens, recorded in `<home>/data/listen.json` once its listeners are
 * bound (ports asked as 0 resolved) and removed when it stops cleanly, so client commands given only the
 * home reach it even when flags or variables moved its ports. A record whose process is gone is ignored.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The URLs a node serves on; undefined for a listener that is off. */
export interface ListenRecord {
  pid: number
  /** EVM JSON-RPC over HTTP, e.g. http://127.0.0.1:8545. */
  jsonRpcHttp?: string | undefined
  /** EVM JSON-RPC over WebSocket. */
  jsonRpcWs?: string | undefined
  /** The consensus RPC (ours, or CometBFT's under `start --abci`), as http://host:port. */
  cometRpc?: string | undefined
  /** The Prometheus endpoint, e.g. http://127.0.0.1:26660/metrics (`[instrumentation] prometheus`). */
  metrics?: string | undefined
}

const FILE = 'listen.json'

/** Writes the record atomically (a temporary file renamed over it). */
export async function writeListenRecord(dataDir: string, record: ListenRecord): Promise<void> {
  const path = join(dataDir, FILE)
  await writeFile(`${path}.tmp`, `${JSON.stringify(record, null, 2)}\n`)
  await rename(`${path}.tmp`, path)
}

/** Removes the record if it is this process's. */
export async function removeListenRecord(dataDir: string): Promise<void> {
  if ((await readListenRecord(dataDir))?.pid === process.pid) await rm(join(dataDir, FILE), { force: true })
}

/** The record of a node that is still running; undefined when there is none, it is unreadable, or its process is gone. */
export async function readListenRecord(dataDir: string): Promise<ListenRecord | undefined> {
  let record: ListenRecord
  try {
    record = JSON.parse(await readFile(join(dataDir, FILE), 'utf8')) as ListenRecord
  } catch {
    return undefined
  }
  return Number.isSafeInteger(record.pid) && isAlive(record.pid) ? record : undefined
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
