/**
 * The consensus write-ahead log (CometBFT `consensus/wal.go`, replayed as `consensus/replay.go` does).
 *
 * Record = CRC-32C of the payload (4 bytes, big-endian) ‖ payload length (4 bytes, big-endian) ‖ payload,
 * the payload being protobuf `TimedWALMessage{time = 1, msg = 2}` with `WALMessage` oneof
 * {event_data_round_state = 1, msg_info = 2, timeout_info = 3, end_height = 4}.
 *
 * Write policy (the caller chooses): own messages `writeSync` (fsync) before they are acted on, those
 * queued together in one write and one fsync (`writeSyncAll`); peer messages, timeouts and round steps
 * `write` (buffered, flushed every 2 s or by the next sync); `#ENDHEIGHT h` `writeSync` before the block
 * of h is applied. A write that fails part-way is cut back before the next one, so a failed write never
 * leaves garbage between valid records.
 *
 * `flushAndSync` (before signing) writes and fsyncs only when a record the replay acts on (a message or
 * a timeout) has been buffered or written since the last fsync. Round-step records are only compared
 * with the replayed state in a debug line, so when nothing else waits they stay buffered until the next
 * write: on a one-validator chain this saves the write and the fsync before each vote, whose only
 * buffered records are the steps entered since our previous message was synced.
 *
 * On open, as CometBFT's `repairWalFile`: the records from the first invalid one on (bad CRC, impossible
 * length, or a record cut short by a crash) are cut off, after the whole file has been copied to
 * `<path>.CORRUPTED`; a cut-short last record is the normal trace of a crash (a warning), any other damage
 * is logged as an error naming both files. The node then starts from what is left.
 *
 * Files: `<path>` is the head; when it passes `maxFileBytes` at an end-of-height marker it is renamed to
 * `<path>.1` (replacing the older one) and a new head starts, so a search sees at least one full height.
 *
 * Start-up stays short however long the chain: open checks the records' framing only (length and CRC, no
 * decoding), and the search for a height's marker decodes from the end backwards, stopping at the marker.
 * A file of 10 MB holds a hundred thousand records of a fast dev chain; decoding them all took a second.
 */
import { writeSync } from 'node:fs'
import { copyFile, mkdir, open, readFile, rename, truncate, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import { decodeTimestamp, encodeTimestamp } from '../comet/encoding.js'
import { ProtoReader, ProtoWriter } from '../comet/proto.js'
import { silentLogger, type Logger } from '../utils/logger.js'
import { now, type Timestamp } from '../utils/time.js'
import { crc32c } from './crc32c.js'
import { decodeConsensusMessage, encodeConsensusMessage, type ConsensusMessage } from './messages.js'
import { isRoundStep, type RoundStep, type RoundStepName } from './round-step.js'

/** CometBFT `maxMsgSizeBytes`: the largest WAL payload (1 MB). */
export const WAL_MAX_MSG_BYTES = 1024 * 1024
/** CRC (4) + length (4). */
const HEADER_BYTES = 8
/** CometBFT flushes buffered WAL writes every 2 s (`walFlushInterval`). */
const DEFAULT_FLUSH_INTERVAL_MS = 2000
/** CometBFT's autofile group rotates at 10 MB (`defaultHeadSizeLimit`). */
const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
/** Where the original of a repaired WAL is kept: `<path>` + this (CometBFT `cs.config.WalFile() + ".CORRUPTED"`). */
export const WAL_CORRUPTED_SUFFIX = '.CORRUPTED'

export type WalMessage =
  /** `EventDataRoundState`, written at every step change. */
  | { type: 'roundState'; height: number; round: number; step: RoundStepName }
  /** `MsgInfo`: a proposal, block part or vote; peerId '' = our own. */
  | { type: 'msgInfo'; msg: ConsensusMessage; peerId: string }
  /** `TimeoutInfo`: a timeout that fired. */
  | { type: 'timeout'; durationMs: number; height: number; round: number; step: RoundStep }
  /** `EndHeightMessage`: the block of `height` is about to be applied. */
  | { type: 'endHeight'; height: number }

export interface TimedWalMessage {
  time: Timestamp
  msg: WalMessage
}

export interface WalOptions {
  /** The head file, e.g. `<home>/data/cs.wal/wal`. */
  path: string
  logger?: Logger
  /** Flush interval of buffered writes in ms (default 2000). */
  flushIntervalMs?: number
  /** Head size in bytes after which the head is rotated at the next end-of-height marker (default 10 MB). */
  maxFileBytes?: number
}

/** The checked, undecoded records of a byte stream. */
export interface WalFrames {
  /** Where each valid record starts. */
  offsets: number[]
  /** Bytes of valid records from the start. */
  validBytes: number
  /** Why the scan stopped before the end, if it did. */
  error?: string
}

/** Result of decoding a byte stream of records. */
export interface DecodedWal {
  messages: TimedWalMessage[]
  /** Bytes of valid records from the start. */
  validBytes: number
  /** Why decoding stopped before the end, if it did. */
  error?: string
}

export class Wal {
  private pending: Uint8Array[] = []
  private chain: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined
  private closed = false
  /** A write failed part-way: the file may end in a partial record, cut back to `size` before the next write. */
  private torn = false
  /** A record the replay acts on (not a round step) was buffered or written since the last fsync. */
  private unsyncedMatters = false

  private constructor(
    private fd: FileHandle,
    private size: number,
    private readonly opts: Required<Omit<WalOptions, 'logger'>> & { logger: Logger },
  ) {
    this.timer = setInterval(
      () => void this.flush(false).catch((err: unknown) => this.opts.logger.error('WAL flush failed', { err })),
      opts.flushIntervalMs,
    )
    this.timer.unref()
  }

  /**
   * Opens (or creates) the WAL, truncating a corrupt or truncated tail. A new WAL starts with
   * `#ENDHEIGHT 0`, as CometBFT's, so that the first height finds its starting point.
   */
  static async open(options: WalOptions): Promise<Wal> {
    const opts = {
      path: options.path,
      logger: options.logger ?? silentLogger,
      flushIntervalMs: options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS,
      maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    }
    await mkdir(dirname(opts.path), { recursive: true })
    const bytes = await readOptional(opts.path)
    const existed = bytes !== undefined && bytes.length > 0
    let size = 0
    if (bytes !== undefined) {
      const frames = scanWalFrames(bytes)
      size = frames.validBytes
      if (frames.validBytes < bytes.length) await repairWal(opts.path, bytes.length, frames, opts.logger)
    }
    const fd = await open(opts.path, 'a')
    const wal = new Wal(fd, size, opts)
    if (!existed) await wal.writeSync({ type: 'endHeight', height: 0 })
    return wal
  }

  /** Buffered write (peer messages, timeouts, round steps). */
  write(msg: WalMessage): void {
    if (this.closed) return
    this.pending.push(encodeWalRecord({ time: now(), msg }))
    if (msg.type !== 'roundState') this.unsyncedMatters = true
  }

  /** Write and fsync before returning (own messages, end-of-height markers). */
  writeSync(msg: WalMessage): Promise<void> {
    return this.writeSyncAll([msg])
  }

  /**
   * Writes `msgs` in order after what is buffered, with one fsync for all of them (own messages queued
   * together: a proposal and its block parts). Either all are durable when it returns, or it throws.
   */
  async writeSyncAll(msgs: readonly WalMessage[]): Promise<void> {
    if (this.closed) throw new Error('WAL is closed')
    const time = now()
    for (const msg of msgs) this.pending.push(encodeWalRecord({ time, msg }))
    await this.flush(true)
    if (msgs.some((m) => m.type === 'endHeight') && this.size >= this.opts.maxFileBytes) {
      // The marker is durable; a rotation that fails is tried again at the next one.
      await this.enqueue(() => this.rotate()).catch((err: unknown) =>
        this.opts.logger.error('WAL rotation failed; keeping the current file', { path: this.opts.path, err }),
      )
    }
  }

  /**
   * Writes the buffered records and fsyncs (CometBFT `FlushAndSync`, used before signing); nothing when
   * all that is unsynced is round steps, which the replay does not act on.
   */
  async flushAndSync(): Promise<void> {
    if (this.closed) return
    await this.flush('ifMatters')
  }

  /**
   * The messages after the last `#ENDHEIGHT height` (searching the previous file too), or undefined
   * when there is no such marker. Messages of later heights are included; the caller filters.
   */
  async searchForEndHeight(height: number): Promise<TimedWalMessage[] | undefined> {
    await this.flush(false)
    const after: TimedWalMessage[] = []
    // The head first, then the previous file: each read from its last record backwards.
    for (const path of [this.opts.path, this.opts.path + '.1']) {
      const bytes = await readOptional(path)
      if (bytes === undefined) continue
      const { offsets } = scanWalFrames(bytes)
      for (let i = offsets.length - 1; i >= 0; i--) {
        const timed = decodeWalPayload(payloadAt(bytes, offsets[i]!), path)
        if (timed.msg.type === 'endHeight' && timed.msg.height === height) return after.reverse()
        after.push(timed)
      }
    }
    return undefined
  }

  /** Flushes, fsyncs and closes. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return
    if (this.timer) clearInterval(this.timer)
    await this.flush(true)
    this.closed = true
    await this.chain
    await this.fd.close()
  }

  /** Writes the buffered records; `true` fsyncs after; `ifMatters` writes and fsyncs only when `unsyncedMatters`. */
  private flush(mode: boolean | 'ifMatters'): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return
      if (this.torn) {
        await this.fd.truncate(this.size)
        this.torn = false
      }
      // Round steps alone wait for the next write: losing them loses nothing the replay uses.
      if (mode === 'ifMatters' && !this.unsyncedMatters) return
      const sync = mode !== false
      // What this fsync covers is taken now: records buffered while it runs set the flag again.
      if (sync) this.unsyncedMatters = false
      if (this.pending.length > 0) {
        // The frames are dropped when the write fails: the caller of a sync write hears of it and does not
        // act on its message; buffered ones (peers' messages, timeouts) are what a crash would lose too.
        const frames = this.pending
        this.pending = []
        const buf = Buffer.concat(frames)
        let off = 0
        try {
          // Into the page cache in place: a trip through the thread pool costs more than the copy; only
          // the fsync below waits on the disk.
          while (off < buf.length) off += this.writeAt(buf, off, buf.length - off)
        } catch (err) {
          this.torn = true
          if (sync) this.unsyncedMatters = true
          throw err
        }
        this.size += buf.length
      }
      if (!sync) return
      try {
        await this.fd.sync()
      } catch (err) {
        this.unsyncedMatters = true
        throw err
      }
    })
  }

  /** Writes `length` bytes of `buf` from `offset` at the end of the head file; returns how many it took. */
  private writeAt(buf: Buffer, offset: number, length: number): number {
    return writeSync(this.fd.fd, buf, offset, length)
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    const next = this.chain.then(op)
    // Keep the chain alive after a failure; the caller of this op still sees the error.
    this.chain = next.catch(() => undefined)
    return next
  }

  /** Head → `<path>.1`, then a new head; the old handle is closed only once the new one is open. */
  private async rotate(): Promise<void> {
    const { path } = this.opts
    await this.fd.sync()
    await rename(path, path + '.1')
    let fd: FileHandle
    try {
      fd = await open(path, 'a')
    } catch (err) {
      // Out of descriptors or space: keep writing the old head under its own name.
      await rename(path + '.1', path)
      throw err
    }
    const old = this.fd
    this.fd = fd
    this.size = 0
    await old.close()
    this.opts.logger.info('rotated WAL', { path })
  }
}

/**
 * CometBFT's repair of a corrupted WAL (`repairWalFile`, run by its state machine before catch-up replay):
 * keep the valid records before the damage, after copying the whole file to `<path>.CORRUPTED` so that
 * nothing is lost for good (`cometbft debug` and the WAL tools can read it). A record cut short at the very
 * end is what a crash in the middle of a write leaves (warning); anything else is damage (error).
 */
async function repairWal(path: string, fileBytes: number, frames: WalFrames, logger: Logger): Promise<void> {
  const backup = path + WAL_CORRUPTED_SUFFIX
  await copyFile(path, backup)
  const context = { path, backup, offset: frames.validBytes, droppedBytes: fileBytes - frames.validBytes, reason: frames.error }
  if (frames.error?.startsWith('truncated')) logger.warn('WAL ends in a record cut short by a crash; truncating it', context)
  else
    logger.error('WAL is corrupted; keeping the records before the damage (the whole file is saved as the backup)', {
      ...context,
      consequence: 'the messages after the damage are not replayed; the height resumes from the sign state and the round timeouts',
    })
  await truncate(path, frames.validBytes)
}

/** Every message of `<path>.1` then `<path>`, in order (each file's valid prefix). */
export async function readAllWal(path: string): Promise<TimedWalMessage[]> {
  const out: TimedWalMessage[] = []
  for (const p of [path + '.1', path]) {
    const bytes = await readOptional(p)
    // One push per message: spreading a file's hundred thousand messages into one call overflows the stack.
    if (bytes !== undefined) for (const m of decodeWalRecords(bytes).messages) out.push(m)
  }
  return out
}

/** A file's bytes, or undefined when it does not exist. */
async function readOptional(path: string): Promise<Uint8Array | undefined> {
  try {
    const buf = await readFile(path)
    // A plain view: a Buffer's subarray costs a Buffer object each, and a file holds a hundred thousand records.
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

/** One framed record: crc32c(payload) ‖ len(payload) ‖ payload (big-endian). */
export function encodeWalRecord(timed: TimedWalMessage): Uint8Array {
  const payload = encodeTimedWalMessage(timed)
  if (payload.length > WAL_MAX_MSG_BYTES)
    throw new Error(`WAL message is ${payload.length} bytes, more than the ${WAL_MAX_MSG_BYTES} allowed`)
  const out = new Uint8Array(HEADER_BYTES + payload.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, crc32c(payload))
  view.setUint32(4, payload.length)
  out.set(payload, HEADER_BYTES)
  return out
}

/**
 * Where each record starts, until the end or the first invalid record (truncated header or payload,
 * impossible length, CRC mismatch): checked but not decoded, and no object made per record.
 */
export function scanWalFrames(bytes: Uint8Array): WalFrames {
  const offsets: number[] = []
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let off = 0
  while (off < bytes.length) {
    if (bytes.length - off < HEADER_BYTES) return { offsets, validBytes: off, error: 'truncated record header' }
    const crc = view.getUint32(off)
    const length = view.getUint32(off + 4)
    if (length === 0 || length > WAL_MAX_MSG_BYTES) return { offsets, validBytes: off, error: `invalid record length ${length}` }
    if (bytes.length - off - HEADER_BYTES < length) return { offsets, validBytes: off, error: 'truncated record payload' }
    if (crc32c(bytes, off + HEADER_BYTES, off + HEADER_BYTES + length) !== crc) {
      return { offsets, validBytes: off, error: 'checksum mismatch' }
    }
    offsets.push(off)
    off += HEADER_BYTES + length
  }
  return { offsets, validBytes: off }
}

/** The payload of the record at `offset` (one {@link scanWalFrames} found). */
function payloadAt(bytes: Uint8Array, offset: number): Uint8Array {
  const length = new DataView(bytes.buffer, bytes.byteOffset + offset + 4, 4).getUint32(0)
  return bytes.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length)
}

/** Decodes records until the end or the first invalid one ({@link scanWalFrames}'s checks, then protobuf). */
export function decodeWalRecords(bytes: Uint8Array): DecodedWal {
  const frames = scanWalFrames(bytes)
  const messages: TimedWalMessage[] = []
  for (const offset of frames.offsets) {
    try {
      messages.push(decodeTimedWalMessage(payloadAt(bytes, offset)))
    } catch (err) {
      return { messages, validBytes: offset, error: `undecodable record: ${(err as Error).message}` }
    }
  }
  return { messages, validBytes: frames.validBytes, error: frames.error }
}

/**
 * A payload whose CRC matched but which does not decode was written so by a node of another version or
 * a bug: replaying past it would be guessing, so the node stops and says where it is.
 */
function decodeWalPayload(payload: Uint8Array, path: string): TimedWalMessage {
  try {
    return decodeTimedWalMessage(payload)
  } catch (err) {
    throw new Error(`WAL ${path}: a record of ${payload.length} bytes does not decode (${(err as Error).message})`)
  }
}

function encodeTimedWalMessage({ time, msg }: TimedWalMessage): Uint8Array {
  const body = new ProtoWriter()
  switch (msg.type) {
    case 'roundState':
      body.message(1, new ProtoWriter().int(1, msg.height).int(2, msg.round).string(3, msg.step).finish())
      break
    case 'msgInfo':
      body.message(2, new ProtoWriter().message(1, encodeConsensusMessage(msg.msg)).string(2, msg.peerId).finish())
      break
    case 'timeout': {
      // google.protobuf.Duration{seconds = 1, nanos = 2}
      const ms = Math.max(0, Math.round(msg.durationMs))
      const duration = new ProtoWriter()
        .int(1, Math.floor(ms / 1000))
        .int(2, (ms % 1000) * 1_000_000)
        .finish()
      body.message(3, new ProtoWriter().message(1, duration).int(2, msg.height).int(3, msg.round).uint(4, msg.step).finish())
      break
    }
    case 'endHeight':
      // An explicit empty-bodied message still marks height 0.
      body.message(4, new ProtoWriter().int(1, msg.height).finish())
      break
  }
  return new ProtoWriter().message(1, encodeTimestamp(time)).message(2, body.finish()).finish()
}

function decodeTimedWalMessage(payload: Uint8Array): TimedWalMessage {
  const r = new ProtoReader(payload)
  let time: Timestamp = { seconds: 0, nanos: 0 }
  let msg: WalMessage | undefined
  while (r.next()) {
    if (r.field === 1) time = decodeTimestamp(r.bytes())
    else if (r.field === 2) msg = decodeWalMessage(r.bytes())
    else r.skip()
  }
  if (!msg) throw new Error('TimedWALMessage without a message')
  return { time, msg }
}

function decodeWalMessage(bytes: Uint8Array): WalMessage {
  const r = new ProtoReader(bytes)
  let msg: WalMessage | undefined
  while (r.next()) {
    const inner = r.field >= 1 && r.field <= 4 ? new ProtoReader(r.bytes()) : undefined
    if (!inner) {
      r.skip()
      continue
    }
    switch (r.field) {
      case 1: {
        let height = 0
        let round = 0
        let step = ''
        while (inner.next()) {
          if (inner.field === 1) height = inner.int64Number()
          else if (inner.field === 2) round = inner.int32()
          else if (inner.field === 3) step = inner.string()
          else inner.skip()
        }
        msg = { type: 'roundState', height, round, step: step as RoundStepName }
        break
      }
      case 2: {
        let consensus: ConsensusMessage | undefined
        let peerId = ''
        while (inner.next()) {
          if (inner.field === 1) consensus = decodeConsensusMessage(inner.bytes())
          else if (inner.field === 2) peerId = inner.string()
          else inner.skip()
        }
        if (!consensus) throw new Error('MsgInfo without a message')
        msg = { type: 'msgInfo', msg: consensus, peerId }
        break
      }
      case 3: {
        let durationMs = 0
        let height = 0
        let round = 0
        let step = 0
        while (inner.next()) {
          if (inner.field === 1) {
            const d = new ProtoReader(inner.bytes())
            let s = 0
            let n = 0
            while (d.next()) {
              if (d.field === 1) s = d.int64Number()
              else if (d.field === 2) n = d.int32()
              else d.skip()
            }
            durationMs = s * 1000 + Math.round(n / 1_000_000)
          } else if (inner.field === 2) height = inner.int64Number()
          else if (inner.field === 3) round = inner.int32()
          else if (inner.field === 4) step = inner.uint32()
          else inner.skip()
        }
        if (!isRoundStep(step)) throw new Error(`TimeoutInfo with invalid step ${step}`)
        msg = { type: 'timeout', durationMs, height, round, step }
        break
      }
      case 4: {
        let height = 0
        while (inner.next()) {
          if (inner.field === 1) height = inner.int64Number()
          else inner.skip()
        }
        msg = { type: 'endHeight', height }
        break
      }
    }
  }
  if (!msg) throw new Error('empty WALMessage')
  return msg
}
