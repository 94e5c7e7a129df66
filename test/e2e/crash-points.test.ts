/**
 * A real node process SIGKILLed between the writes of a height (block-executor.ts `applyBlock`): after
 * the engine wrote the block and its FinalizeBlock response but before the app's Commit, inside the app's
 * Commit before its batch is written, and after the app's Commit but before the engine saved the state.
 * The child (test/helpers/crash-point-child.ts) stops at the point and reports it; the test kills it
 * there and restarts a node on the same home. Nothing a client was told is lost (a receipt is readable
 * only once the app's Commit is written, and no newHeads announces a height before both writes), the
 * height keeps its block hash and app hash, the flat state is the head's, and the chain goes on.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet, keccak256 } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { signDevTransfer } from '../helpers/dev-transfer.js'
import type { BlockJson } from '../../src/api/eth/format.js'
import type { NodeAddresses } from '../../src/node/node.js'
import { bundleChild, lineOf, spawnChild } from '../helpers/child-lines.js'
import { captureLog } from '../helpers/log-capture.js'
import { hashHeaderJson } from '../helpers/eth-header.js'
import type { CrashPoint, Paused } from '../helpers/crash-point-child.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import { RawWsClient } from '../helpers/ws-client.js'
import { flatMarker, flatRecords, trieRecords } from '../helpers/flat-records.js'

/** The handshake's log line for the way it heals each point. */
const HEALED_BY: Record<CrashPoint, RegExp> = {
  'before-app-commit': /replaying the last stored block into the app/,
  'inside-app-commit': /replaying the last stored block into the app/,
  'after-app-commit': /updating the state from the stored FinalizeBlock response/,
}

const [sender, recipient] = devAccounts(2)
const wallet = new Wallet(sender!.privateKey)

function transfer(nonce: number): Promise<string> {
  return signDevTransfer(wallet, nonce, recipient!.address, 1n)
}

describe('SIGKILL between the writes of a height', () => {
  let script = ''
  const homes: string[] = []
  let restarted: TestNode | undefined

  beforeAll(async () => {
    script = await bundleChild('crash-point-child')
  })
  afterAll(async () => {
    await restarted?.stop()
    await rm(script, { force: true })
    for (const home of homes) await rm(home, { recursive: true, force: true })
  })

  it.each(['before-app-commit', 'inside-app-commit', 'after-app-commit'] as const)(
    'killed %s: nothing told is lost, same hashes',
    async (point) => {
      const home = await mkdtemp(join(tmpdir(), 'nodectl-crash-point-'))
      homes.push(home)
      const { child, output, exited } = spawnChild(script, [home, point])
      try {
        const addresses = await lineOf<NodeAddresses>(child, 'ready ', output)
        const url = addresses.jsonRpcHttp!
        const ws = await RawWsClient.connect(addresses.jsonRpcWs!)
        const heads = await ws.call<string>('eth_subscribe', ['newHeads'])

        const raw = await transfer(0)
        const hash = keccak256(raw)
        const paused = lineOf<Paused>(child, 'paused ', output)
        expect((await rpc(url, 'eth_sendRawTransaction', [raw])).error).toBeUndefined()
        const at = await paused
        expect(at.point).toBe(point)

        // A receipt is readable once the app's Commit is written, not before.
        const told = (await rpc<Record<string, unknown> | null>(url, 'eth_getTransactionReceipt', [hash])).result
        if (point === 'after-app-commit') expect(told).toMatchObject({ blockNumber: `0x${at.height.toString(16)}`, status: '0x1' })
        else expect(told).toBeNull()

        child.kill('SIGKILL')
        await exited
        await ws.waitForClose()
        // No client heard of the height: it was never written by both sides before the kill.
        const announced = ws.notifications<{ number: string }>(heads).map((n) => Number(n.result.number))
        expect(announced).not.toContain(at.height)

        const log = captureLog('info')
        restarted = await startTestNode({ home, log: log.logger })
        expect(log.lines.some((line) => HEALED_BY[point].test(line))).toBe(true)
        const receipt = (await rpc<Record<string, unknown>>(restarted.url, 'eth_getTransactionReceipt', [hash])).result
        if (told) expect(receipt).toEqual(told)
        const block = (await rpc<BlockJson>(restarted.url, 'eth_getBlockByNumber', [`0x${at.height.toString(16)}`, false])).result!
        expect(receipt).toMatchObject({ blockNumber: `0x${at.height.toString(16)}`, blockHash: block.hash, status: '0x1' })
        // The height decided before the kill, executed again: its Ethereum header over the same results.
        expect({ cometHash: block.cometHash, stateRoot: block.stateRoot }).toEqual({ cometHash: at.cometHash, stateRoot: at.appHash })
        expect(hashHeaderJson(block)).toBe(block.hash)

        // The chain goes on, and the next block's header carries the same app hash.
        const next = await transfer(1)
        expect((await rpc(restarted.url, 'eth_sendRawTransaction', [next])).error).toBeUndefined()
        const t = restarted
        await waitForBlock(t, async () => (await rpc(t.url, 'eth_getTransactionReceipt', [keccak256(next)])).result, 20_000, 'next receipt')
        const after = (await t.node.components.blockStore.loadBlock(at.height + 1))!
        expect(`0x${Buffer.from(after.header.appHash).toString('hex')}`).toBe(at.appHash)
        // The flat state is the head's, record for record.
        const { app, db } = t.node.components
        await app.flatStateComplete()
        const head = (await app.info()).lastBlockAppHash
        const marker = await flatMarker(db)
        expect(Buffer.from(marker!.root).toString('hex')).toBe(Buffer.from(head).toString('hex'))
        expect(await flatRecords(db)).toEqual(await trieRecords(db, app.common, head))
        await restarted.stop()
        restarted = undefined
      } finally {
        child.kill('SIGKILL')
      }
    },
    // A child process and a restart each: slow on a loaded 2-core machine.
    120_000,
  )
})
