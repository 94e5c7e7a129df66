import { appendFile, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeBlockId } from '../../../src/comet/part-set.js'
import { emptyCommit } from '../../../src/comet/commit.js'
import { crc32c } from '../../../src/consensus/crc32c.js'
import { decodeConsensusMessage, encodeConsensusMessage, type ConsensusMessage } from '../../../src/consensus/messages.js'
import { RoundStep } from '../../../src/consensus/round-step.js'
import { decodeWalRecords, encodeWalRecord, readAllWal, Wal } from '../../../src/consensus/wal.js'
import { sha256 } from '../../../src/crypto/index.js'
import { utf8ToBytes } from '../../../src/primitives/hex.js'
import { now } from '../../../src/utils/time.js'
import { makeTempDir, recordingLogger, removeDir } from './helpers.js'

const vote: ConsensusMessage = {
  type: 'vote',
  vote: {
    type: 2,
    height: 9,
    round: 1,
    blockId: { hash: sha256(utf8ToBytes('b')), partSetHeader: { total: 1, hash: sha256(utf8ToBytes('p')) } },
    timestamp: now(),
    validatorAddress: new Uint8Array(20).fill(1),
    validatorIndex: 0,
    signature: new Uint8Array(64).fill(2),
  },
}

/** Counts the fsyncs of `wal`'s file from now on. */
function countSyncs(wal: Wal): () => number {
  const fd = (wal as unknown as { fd: { sync: () => Promise<void> } }).fd
  const sync = fd.sync.bind(fd)
  let syncs = 0
  fd.sync = () => {
    syncs++
    return sync()
  }
  return () => syncs
}

describe('crc32c', () => {
  it('matches the Castagnoli check value', () => {
    expect(crc32c(utf8ToBytes('123456789'))).toBe(0xe3069283)
    expect(crc32c(new Uint8Array(0))).toBe(0)
  })
})

describe('consensus messages', () => {
  it('round-trip proposal, block part and vote through their protobuf encoding', () => {
    const block = {
      header: {
        version: { block: 11n, app: 0n },
        chainId: 'c',
        height: 1,
        time: now(),
        lastBlockId: { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } },
        lastCommitHash: sha256(new Uint8Array(0)),
        dataHash: sha256(new Uint8Array(0)),
        validatorsHash: sha256(utf8ToBytes('v')),
        nextValidatorsHash: sha256(utf8ToBytes('v')),
        consensusHash: sha256(utf8ToBytes('c')),
        appHash: new Uint8Array(0),
        lastResultsHash: sha256(new Uint8Array(0)),
        evidenceHash: sha256(new Uint8Array(0)),
        proposerAddress: new Uint8Array(20).fill(3),
      },
      txs: [utf8ToBytes('a=1')],
      evidence: [],
      lastCommit: emptyCommit(),
    }
    const { blockId, partSet } = makeBlockId(block)
    const msgs: ConsensusMessage[] = [
      {
        type: 'proposal',
        proposal: { height: 1, round: 2, polRound: -1, blockId, timestamp: now(), signature: new Uint8Array(64).fill(9) },
      },
      { type: 'blockPart', height: 1, round: 2, part: partSet.parts[0]! },
      vote,
    ]
    for (const m of msgs) expect(decodeConsensusMessage(encodeConsensusMessage(m))).toEqual(m)
  })
})

describe('WAL', () => {
  let dir: string
  let path: string
  beforeEach(async () => {
    dir = await makeTempDir()
    path = join(dir, 'cs.wal', 'wal')
  })
  afterEach(() => removeDir(dir))

  it('frames records as crc32c ‖ big-endian length ‖ payload', () => {
    const rec = encodeWalRecord({ time: now(), msg: { type: 'endHeight', height: 7 } })
    const view = new DataView(rec.buffer)
    const length = view.getUint32(4)
    expect(length).toBe(rec.length - 8)
    expect(view.getUint32(0)).toBe(crc32c(rec.subarray(8)))
    expect(decodeWalRecords(rec).messages[0]!.msg).toEqual({ type: 'endHeight', height: 7 })
  })

  it('starts with #ENDHEIGHT 0 and returns the messages after an end-height marker', async () => {
    const wal = await Wal.open({ path })
    wal.write({ type: 'roundState', height: 1, round: 0, step: 'RoundStepNewHeight' })
    await wal.writeSync({ type: 'msgInfo', msg: vote, peerId: '' })
    wal.write({ type: 'timeout', durationMs: 1500, height: 1, round: 0, step: RoundStep.Propose })
    await wal.writeSync({ type: 'endHeight', height: 1 })
    wal.write({ type: 'msgInfo', msg: vote, peerId: 'peer1' })
    await wal.close()

    const reopened = await Wal.open({ path })
    const afterZero = (await reopened.searchForEndHeight(0))!.map((m) => m.msg)
    expect(afterZero).toEqual([
      { type: 'roundState', height: 1, round: 0, step: 'RoundStepNewHeight' },
      { type: 'msgInfo', msg: vote, peerId: '' },
      { type: 'timeout', durationMs: 1500, height: 1, round: 0, step: RoundStep.Propose },
      { type: 'endHeight', height: 1 },
      { type: 'msgInfo', msg: vote, peerId: 'peer1' },
    ])
    expect((await reopened.searchForEndHeight(1))!.map((m) => m.msg)).toEqual([{ type: 'msgInfo', msg: vote, peerId: 'peer1' }])
    expect(await reopened.searchForEndHeight(2)).toBeUndefined()
    await reopened.close()
  })

  it('detects a CRC error, saves the whole file as <wal>.CORRUPTED and truncates the corrupt tail with an error', async () => {
    const wal = await Wal.open({ path })
    await wal.writeSync({ type: 'endHeight', height: 1 })
    await wal.writeSync({ type: 'msgInfo', msg: vote, peerId: 'p' })
    await wal.close()
    const goodSize = (await stat(path)).size
    await wal.close() // idempotent
    const extra = encodeWalRecord({ time: now(), msg: { type: 'endHeight', height: 2 } })
    extra[extra.length - 1]! ^= 0xff // flip a payload bit: CRC mismatch
    await appendFile(path, extra)

    const decoded = decodeWalRecords(await readFile(path))
    expect(decoded.error).toBe('checksum mismatch')
    expect(decoded.validBytes).toBe(goodSize)

    const original = await readFile(path)
    const { logger, lines } = recordingLogger()
    const reopened = await Wal.open({ path, logger })
    const logged = lines.find((l) => l.level === 'error' && /WAL is corrupted/.test(l.msg))
    expect(logged?.ctx).toMatchObject({ path, backup: path + '.CORRUPTED', offset: goodSize, reason: 'checksum mismatch' })
    expect(await readFile(path + '.CORRUPTED')).toEqual(original)
    expect((await stat(path)).size).toBe(goodSize)
    await reopened.writeSync({ type: 'endHeight', height: 2 })
    expect((await reopened.searchForEndHeight(2))!).toEqual([])
    await reopened.close()
  })

  it('truncates a record cut short by a crash and rejects impossible lengths', async () => {
    const wal = await Wal.open({ path })
    await wal.writeSync({ type: 'endHeight', height: 1 })
    await wal.close()
    const goodSize = (await stat(path)).size
    const rec = encodeWalRecord({ time: now(), msg: { type: 'msgInfo', msg: vote, peerId: '' } })
    await appendFile(path, rec.subarray(0, rec.length - 10))
    expect(decodeWalRecords(await readFile(path)).error).toBe('truncated record payload')
    const torn = recordingLogger()
    const reopened = await Wal.open({ path, logger: torn.logger })
    expect((await stat(path)).size).toBe(goodSize)
    // The normal trace of a crash: a warning, not an error.
    expect(torn.lines.filter((l) => l.level === 'error')).toEqual([])
    expect(torn.lines.some((l) => l.level === 'warn' && /cut short by a crash/.test(l.msg))).toBe(true)
    await reopened.close()

    const huge = new Uint8Array(8)
    new DataView(huge.buffer).setUint32(4, 2 * 1024 * 1024)
    await appendFile(path, huge)
    expect(decodeWalRecords(await readFile(path)).error).toMatch(/invalid record length/)
    await (await Wal.open({ path })).close()
    expect((await stat(path)).size).toBe(goodSize)
  })

  it('rotates the head at an end-height marker and still finds markers in the previous file', async () => {
    const wal = await Wal.open({ path, maxFileBytes: 200 })
    for (let h = 1; h <= 5; h++) {
      await wal.writeSync({ type: 'msgInfo', msg: vote, peerId: '' })
      await wal.writeSync({ type: 'endHeight', height: h })
    }
    await wal.writeSync({ type: 'msgInfo', msg: vote, peerId: 'x' })
    await wal.close()
    await expect(stat(path + '.1')).resolves.toBeDefined()
    const reopened = await Wal.open({ path })
    expect((await reopened.searchForEndHeight(5))!.map((m) => m.msg)).toEqual([{ type: 'msgInfo', msg: vote, peerId: 'x' }])
    await reopened.close()
    expect((await readAllWal(path)).length).toBeGreaterThan(0)
  })

  it('a write that fails part-way (disk full, I/O error) is cut back before the next one: no garbage between records', async () => {
    const wal = await Wal.open({ path })
    await wal.writeSync({ type: 'endHeight', height: 1 })
    // The WAL's write into its file: half of the next buffer lands, then the disk fails.
    const target = wal as unknown as { writeAt: (buf: Buffer, off: number, len: number) => number }
    const write = target.writeAt.bind(wal)
    target.writeAt = (buf, off, len) => {
      target.writeAt = () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      }
      return write(buf, off, Math.floor(len / 2))
    }
    await expect(wal.writeSync({ type: 'msgInfo', msg: vote, peerId: '' })).rejects.toThrow('ENOSPC')
    target.writeAt = write
    await wal.writeSync({ type: 'endHeight', height: 2 })
    await wal.close()

    const decoded = decodeWalRecords(await readFile(path))
    expect(decoded.error).toBeUndefined()
    expect(decoded.messages.map((m) => m.msg)).toEqual([
      { type: 'endHeight', height: 0 },
      { type: 'endHeight', height: 1 },
      { type: 'endHeight', height: 2 },
    ])
  })

  it('writes own messages queued together in order with one fsync', async () => {
    const wal = await Wal.open({ path })
    const syncs = countSyncs(wal)
    const part: ConsensusMessage = { ...vote, vote: { ...vote.vote, type: 1 } }
    await wal.writeSyncAll([
      { type: 'msgInfo', msg: vote, peerId: '' },
      { type: 'msgInfo', msg: part, peerId: '' },
    ])
    expect(syncs()).toBe(1)
    expect((await readAllWal(path)).map((m) => m.msg)).toEqual([
      { type: 'endHeight', height: 0 },
      { type: 'msgInfo', msg: vote, peerId: '' },
      { type: 'msgInfo', msg: part, peerId: '' },
    ])
    await wal.close()
  })

  it('leaves round steps buffered before signing, and writes and fsyncs once a message or timeout waits', async () => {
    const wal = await Wal.open({ path })
    const syncs = countSyncs(wal)
    wal.write({ type: 'roundState', height: 1, round: 0, step: 'RoundStepPrevote' })
    await wal.flushAndSync()
    expect(syncs()).toBe(0)
    expect((await readAllWal(path)).map((m) => m.msg.type)).toEqual(['endHeight'])

    wal.write({ type: 'timeout', durationMs: 1000, height: 1, round: 0, step: RoundStep.Propose })
    wal.write({ type: 'roundState', height: 1, round: 0, step: 'RoundStepPrecommit' })
    await wal.flushAndSync()
    expect(syncs()).toBe(1)
    expect((await readAllWal(path)).map((m) => m.msg.type)).toEqual(['endHeight', 'roundState', 'timeout', 'roundState'])
    await wal.flushAndSync()
    expect(syncs()).toBe(1)

    // A peer's message flushed by the periodic flush, not synced: the next flush before signing syncs it.
    wal.write({ type: 'msgInfo', msg: vote, peerId: 'peer1' })
    await (wal as unknown as { flush: (mode: boolean) => Promise<void> }).flush(false)
    await wal.flushAndSync()
    expect(syncs()).toBe(2)
    await wal.close()
  })

  it('opens and searches a file of two hundred thousand records (a fast dev chain) without decoding them all', async () => {
    const heights = 200_000
    const records = Array.from({ length: heights + 1 }, (_, h) => encodeWalRecord({ time: now(), msg: { type: 'endHeight', height: h } }))
    records.push(encodeWalRecord({ time: now(), msg: { type: 'msgInfo', msg: vote, peerId: 'last' } }))
    await (await Wal.open({ path })).close()
    await writeFile(path, Buffer.concat(records))
    const wal = await Wal.open({ path })
    expect((await wal.searchForEndHeight(heights))!.map((m) => m.msg)).toEqual([{ type: 'msgInfo', msg: vote, peerId: 'last' }])
    expect((await wal.searchForEndHeight(heights - 1))!.map((m) => m.msg.type)).toEqual(['endHeight', 'msgInfo'])
    await wal.close()
    expect((await readAllWal(path)).length).toBe(heights + 2)
  })

  it('stops with the file named at a record whose CRC matches but which does not decode', async () => {
    const wal = await Wal.open({ path })
    await wal.writeSync({ type: 'endHeight', height: 1 })
    await wal.close()
    const payload = new Uint8Array([0xff, 0xff, 0xff])
    const header = new Uint8Array(8)
    new DataView(header.buffer).setUint32(0, crc32c(payload))
    new DataView(header.buffer).setUint32(4, payload.length)
    await appendFile(path, Buffer.concat([header, payload]))
    const reopened = await Wal.open({ path })
    await expect(reopened.searchForEndHeight(1)).rejects.toThrow(`WAL ${path}: a record of 3 bytes does not decode`)
    await reopened.close()
  })

  it('treats an empty file as a new WAL (starts with #ENDHEIGHT 0)', async () => {
    await (await Wal.open({ path })).close()
    await writeFile(path, new Uint8Array(0))
    const wal = await Wal.open({ path })
    expect(await wal.searchForEndHeight(0)).toEqual([])
    await wal.close()
  })
})
