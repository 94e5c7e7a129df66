/**
 * A validator that cannot write its sign state (issue 27: `EMFILE` on `priv_validator_state.json`'s
 * temporary file while idle connections held every descriptor) logs it, goes on through the rounds'
 * timeouts, and commits again once writes succeed — it never stalls for good at the step that failed.
 * The same for a WAL that cannot take its own messages (CometBFT panics there).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { FilePV, type SignStateWriter } from '../../../src/consensus/privval.js'
import { Wal, type WalMessage } from '../../../src/consensus/wal.js'
import { writeFileAtomic } from '../../../src/utils/files.js'
import { makeGenesis, makeKeys, nodeFolderPerTest, recordingLogger, waitFor } from './helpers.js'

/** The error `open()` gives when the process has no descriptor left. */
function emfile(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EMFILE: too many open files, open '${path}.tmp'`), { code: 'EMFILE', errno: -24, syscall: 'open' })
}

describe('sign state write failures', () => {
  const folder = nodeFolderPerTest()

  it('a validator whose sign state cannot be written moves through the rounds and commits once writes succeed', async () => {
    const keys = makeKeys(1)
    const genesis = makeGenesis(keys)
    let failing = false
    let failures = 0
    const writeState: SignStateWriter = async (path, text, mode) => {
      if (failing) {
        failures++
        throw emfile(path)
      }
      await writeFileAtomic(path, text, mode)
    }
    const { logger, lines } = recordingLogger()
    const node = await folder.start({
      genesis,
      key: keys[0]!,
      logger,
      // The real signer and state file, with the write that the test can make fail.
      wrapSigner: (pv) => new FilePV(pv.key, pv.statePath, pv.lastSignState(), { writeState }),
    })
    await waitFor(() => node.engine.height >= 2, 'height 2')

    failing = true
    const stuckAt = node.engine.height
    // Proposal, prevote and precommit fail in every round: two rounds' worth of failed writes means the
    // validator went on through the timeouts instead of waiting at the step that failed first.
    await waitFor(() => failures >= 6 && node.engine.getRoundState().round >= 2, 'two rounds with failing writes')
    expect(node.engine.height).toBeLessThanOrEqual(stuckAt + 1)
    expect(node.engine.fatalError).toBeUndefined()
    const failed = lines.filter((l) => l.level === 'error' && l.msg === 'failed signing vote')
    expect(failed.length).toBeGreaterThan(0)
    expect(String(failed[0]!.ctx.err)).toMatch(/EMFILE/)

    failing = false
    const resumedFrom = node.engine.height
    await waitFor(() => node.engine.height >= resumedFrom + 2, 'commits after the writes succeed again')
    expect(node.engine.fatalError).toBeUndefined()
    // The height that was stuck was decided in a later round.
    const commit = (await node.blockStore.loadSeenCommit(resumedFrom + 1)) ?? (await node.blockStore.loadBlockCommit(resumedFrom + 1))
    expect(commit!.round).toBeGreaterThanOrEqual(1)
  })

  afterEach(() => {
    vi.restoreAllMocks()
  })

  it.each([
    { failing: 'own-message writes' as const, logged: /failed to write own message to the WAL; dropping it/ },
    { failing: 'pre-signing flushes' as const, logged: /failed to flush the WAL before signing/ },
  ])('a validator whose WAL fails ($failing) moves through the rounds and commits once the WAL works', async (c) => {
    const keys = makeKeys(1)
    const genesis = makeGenesis(keys)
    let failing = false
    let failures = 0
    const eio = (): Error => Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' })
    // The real WAL, whose own-message writes or pre-signing flushes fail while `failing`.
    const writeSyncAll = Wal.prototype.writeSyncAll
    const flushAndSync = Wal.prototype.flushAndSync
    vi.spyOn(Wal.prototype, 'writeSyncAll').mockImplementation(function (this: Wal, msgs: readonly WalMessage[]) {
      if (failing && c.failing === 'own-message writes' && msgs.some((m) => m.type === 'msgInfo' && m.peerId === '')) {
        failures++
        return Promise.reject(eio())
      }
      return writeSyncAll.call(this, msgs)
    })
    vi.spyOn(Wal.prototype, 'flushAndSync').mockImplementation(function (this: Wal) {
      if (failing && c.failing === 'pre-signing flushes') {
        failures++
        return Promise.reject(eio())
      }
      return flushAndSync.call(this)
    })
    const { logger, lines } = recordingLogger()
    const node = await folder.start({ genesis, key: keys[0]!, logger })
    await waitFor(() => node.engine.height >= 2, 'height 2')

    failing = true
    await waitFor(() => failures >= 6 && node.engine.getRoundState().round >= 2, 'two rounds with a failing WAL')
    expect(node.engine.fatalError).toBeUndefined()
    expect(lines.some((l) => l.level === 'error' && c.logged.test(l.msg))).toBe(true)

    failing = false
    const resumedFrom = node.engine.height
    await waitFor(() => node.engine.height >= resumedFrom + 2, 'commits after the WAL works again')
    expect(node.engine.fatalError).toBeUndefined()
  })

  it('a commit whose #ENDHEIGHT cannot be written is retried, not abandoned, and the chain goes on once the WAL works', async () => {
    const keys = makeKeys(1)
    const genesis = makeGenesis(keys)
    let failing = false
    let failures = 0
    const writeSync = Wal.prototype.writeSync
    vi.spyOn(Wal.prototype, 'writeSync').mockImplementation(function (this: Wal, msg: WalMessage) {
      if (failing && msg.type === 'endHeight') {
        failures++
        return Promise.reject(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }))
      }
      return writeSync.call(this, msg)
    })
    const { logger, lines } = recordingLogger()
    const node = await folder.start({ genesis, key: keys[0]!, logger })
    await waitFor(() => node.engine.height >= 2, 'height 2')

    failing = true
    await waitFor(() => failures >= 3, 'three attempts to write #ENDHEIGHT')
    const decidedBelow = node.engine.height
    expect(node.engine.fatalError).toBeUndefined()
    expect(lines.some((l) => l.level === 'error' && l.msg === 'failed to write #ENDHEIGHT to the WAL; retrying the commit')).toBe(true)

    failing = false
    await waitFor(() => node.engine.height >= decidedBelow + 2, 'commits after the WAL works again')
    expect(node.engine.fatalError).toBeUndefined()
  })
})
