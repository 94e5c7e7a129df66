/**
 * The dev node restarted on what a crash at the wrong moment leaves (issue 27, severe 5): its sign state
 * holds a prevote of the next height that its WAL, cut back to the last #ENDHEIGHT, does not; or a byte
 * in the middle of its WAL is flipped. Either way it commits transactions again after the restart.
 */
import { Wallet, keccak256 } from 'ethers'
import { readFile, rm, truncate, writeFile } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { SignedMsgType } from '../../src/comet/types.js'
import { FilePV } from '../../src/consensus/privval.js'
import { decodeWalRecords } from '../../src/consensus/wal.js'
import { sha256 } from '../../src/crypto/index.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { utf8ToBytes } from '../../src/primitives/hex.js'
import { now } from '../../src/utils/time.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'

/** Byte length of the WAL up to and including its last `#ENDHEIGHT` record. */
async function lastEndHeightOffset(walPath: string): Promise<number> {
  const bytes = await readFile(walPath)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let off = 0
  let last = 0
  while (off < bytes.length) {
    const end = off + 8 + view.getUint32(off + 4)
    if (decodeWalRecords(bytes.subarray(off, end)).messages[0]?.msg.type === 'endHeight') last = end
    off = end
  }
  return last
}

describe('dev node restarted after a crash at the wrong moment', () => {
  const [sender, recipient] = devAccounts(2)
  const wallet = new Wallet(sender!.privateKey)
  let nonce = 0
  const homes: string[] = []
  let current: TestNode | undefined
  afterAll(async () => {
    await current?.stop()
    // Retried as Node's rm allows: a file the stopped node's last write left being renamed into data/ can
    // make one pass find the folder not yet empty (ENOTEMPTY).
    for (const home of homes) await rm(home, { recursive: true, force: true, maxRetries: 5 })
  })

  async function sendAndCommit(t: TestNode): Promise<number> {
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: 31337n,
      nonce: nonce++,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      to: recipient!.address,
      value: 1n,
    })
    expect((await rpc(t.url, 'eth_sendRawTransaction', [raw])).error).toBeUndefined()
    const receipt = await waitForBlock(
      t,
      async () => (await rpc<{ blockNumber: string }>(t.url, 'eth_getTransactionReceipt', [keccak256(raw)])).result,
      20_000,
      'receipt',
    )
    return Number(receipt.blockNumber)
  }

  /** Rewrites the sign state as the crash leaves it: a prevote of `height` round 0 for a block nobody has. */
  async function signedLostPrevote(t: TestNode, height: number): Promise<void> {
    const { paths } = t.node.config
    await rm(paths.privValidatorState)
    const pv = await FilePV.load(paths.privValidatorKey, paths.privValidatorState)
    await pv.signVote(t.node.config.chainId, {
      type: SignedMsgType.Prevote,
      height,
      round: 0,
      blockId: { hash: sha256(utf8ToBytes('lost block')), partSetHeader: { total: 1, hash: sha256(utf8ToBytes('lost parts')) } },
      timestamp: now(),
      validatorAddress: pv.address,
      validatorIndex: 0,
      signature: new Uint8Array(0),
    })
  }

  it('sign state ahead of a WAL cut back to the last #ENDHEIGHT: commits again', async () => {
    nonce = 0
    current = await startTestNode()
    homes.push(current.home)
    await sendAndCommit(current)
    const stopped = current
    await stopped.stop()
    const next = stopped.node.components.blockStore.height() + 1
    await truncate(stopped.node.config.paths.wal, await lastEndHeightOffset(stopped.node.config.paths.wal))
    await signedLostPrevote(stopped, next)

    current = await startTestNode({ home: stopped.home })
    expect(await sendAndCommit(current)).toBeGreaterThanOrEqual(next)
  })

  it('a byte flipped in the middle of the WAL: saved as <wal>.CORRUPTED, repaired, and commits again', async () => {
    nonce = 0
    current = await startTestNode()
    homes.push(current.home)
    for (let i = 0; i < 3; i++) await sendAndCommit(current)
    const stopped = current
    await stopped.stop()
    const next = stopped.node.components.blockStore.height() + 1
    const walPath = stopped.node.config.paths.wal
    const wal = await readFile(walPath)
    wal[Math.floor(wal.length / 2)]! ^= 0x40
    await writeFile(walPath, wal)
    await signedLostPrevote(stopped, next)

    current = await startTestNode({ home: stopped.home })
    expect(await readFile(walPath + '.CORRUPTED')).toEqual(wal)
    expect(await sendAndCommit(current)).toBeGreaterThanOrEqual(next)
  })
})
