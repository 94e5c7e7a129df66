/**
 * Snapshots on disk, as the Cosmos SDK keeps them under `data/snapshots/`: one directory per snapshot,
 * `<height>-<format>/`, holding its chunks (`chunk-<index>`) and `snapshot.json` (height, format, chunk
 * hashes, hash). A snapshot is written in `.partial-<height>-<format>/` and renamed into place once every
 * file is synced, so a crash while writing one leaves no half snapshot listed (the partial directory
 * is removed at the next start).
 */
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { bytesToHex, hexToBytes } from '../../primitives/hex.js'
import { encodeMetadata, hashChunk, hashSnapshot } from './snapshot-format.js'

/** A stored snapshot, as ListSnapshots describes it. */
export interface StoredSnapshot {
  height: number
  format: number
  chunks: number
  hash: Uint8Array
  metadata: Uint8Array
  chunkHashes: Uint8Array[]
}

const MANIFEST = 'snapshot.json'
const PARTIAL = '.partial-'
const NAME = /^(\d+)-(\d+)$/

interface Manifest {
  height: number
  format: number
  chunkHashes: string[]
  hash: string
}

/** A snapshot being written: chunks are added in order, then `finish` lists it. */
export class SnapshotWriter {
  private readonly chunkHashes: Uint8Array[] = []

  constructor(
    private readonly store: SnapshotStore,
    readonly height: number,
    readonly format: number,
    private readonly dir: string,
  ) {}

  async addChunk(chunk: Uint8Array): Promise<void> {
    await writeSynced(join(this.dir, `chunk-${this.chunkHashes.length}`), chunk)
    this.chunkHashes.push(hashChunk(chunk))
  }

  /** Writes the manifest and moves the snapshot into place. */
  async finish(): Promise<StoredSnapshot> {
    const hash = hashSnapshot(this.chunkHashes)
    const manifest: Manifest = {
      height: this.height,
      format: this.format,
      chunkHashes: this.chunkHashes.map(bytesToHex),
      hash: bytesToHex(hash),
    }
    await writeSynced(join(this.dir, MANIFEST), new TextEncoder().encode(JSON.stringify(manifest)))
    await rename(this.dir, this.store.pathOf(this.height, this.format))
    return toStored(manifest)
  }

  /** Removes what was written. */
  async discard(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true })
  }
}

export class SnapshotStore {
  constructor(readonly dir: string) {}

  /** Creates the directory and removes partial snapshots a crash left. */
  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true })
    for (const name of await readdir(this.dir)) {
      if (name.startsWith(PARTIAL)) await rm(join(this.dir, name), { recursive: true, force: true })
    }
  }

  pathOf(height: number, format: number): string {
    return join(this.dir, `${height}-${format}`)
  }

  /** Starts writing a snapshot of `height` (replacing a partial one of the same height). */
  async create(height: number, format: number): Promise<SnapshotWriter> {
    const dir = join(this.dir, `${PARTIAL}${height}-${format}`)
    await rm(dir, { recursive: true, force: true })
    await mkdir(dir, { recursive: true })
    return new SnapshotWriter(this, height, format, dir)
  }

  /** The listed snapshots, newest first. */
  async list(): Promise<StoredSnapshot[]> {
    let names: string[]
    try {
      names = await readdir(this.dir)
    } catch {
      return []
    }
    const out: StoredSnapshot[] = []
    for (const name of names) {
      if (!NAME.test(name)) continue
      try {
        out.push(toStored(JSON.parse(await readFile(join(this.dir, name, MANIFEST), 'utf8')) as Manifest))
      } catch {
        // Not a finished snapshot (no readable manifest): not listed.
      }
    }
    return out.sort((a, b) => b.height - a.height || b.format - a.format)
  }

  /** A chunk of a listed snapshot, or undefined. */
  async loadChunk(height: number, format: number, index: number): Promise<Uint8Array | undefined> {
    if (!Number.isSafeInteger(index) || index < 0) return undefined
    try {
      return new Uint8Array(await readFile(join(this.pathOf(height, format), `chunk-${index}`)))
    } catch {
      return undefined
    }
  }

  /** Deletes every listed snapshot but the newest `keepRecent`; returns the heights deleted. */
  async prune(keepRecent: number): Promise<number[]> {
    const old = (await this.list()).slice(keepRecent)
    for (const s of old) await this.delete(s.height, s.format)
    return old.map((s) => s.height)
  }

  /** Unlists a snapshot first (its manifest), then removes its files. */
  private async delete(height: number, format: number): Promise<void> {
    const dir = this.pathOf(height, format)
    await rm(join(dir, MANIFEST), { force: true })
    await rm(dir, { recursive: true, force: true })
  }
}

function toStored(m: Manifest): StoredSnapshot {
  const chunkHashes = m.chunkHashes.map(hexToBytes)
  return {
    height: m.height,
    format: m.format,
    chunks: chunkHashes.length,
    hash: hexToBytes(m.hash),
    metadata: encodeMetadata(chunkHashes),
    chunkHashes,
  }
}

async function writeSynced(path: string, bytes: Uint8Array): Promise<void> {
  const file = await open(path, 'w')
  try {
    await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
}
