import { afterEach, describe, expect, it } from 'vitest'
import { createAccountFromRLP } from '@ethereumjs/util'
import { keccak256 } from '../../../../src/crypto/index.js'
import { createAddress } from '../../../../src/evm/store/evm-records.js'
import { dataKey, decodeFlatMarker, FlatStatus, MARKER_KEY } from '../../../../src/evm/state/flat-keys.js'
import { flatReaderOf } from '../../../../src/evm/state/flat-reader.js'
import { SLICE_RECORDS } from '../../../../src/evm/state/flat-generator.js'
import { flatMarker, flatRecords, trieRecords } from '../../../helpers/flat-records.js'
import { bytesToHex, concatBytes, hexToBytes } from '../../../../src/primitives/hex.js'
import {
  ADDRESS2,
  createHarness,
  defaultAppState,
  DEV_ADDRESS,
  DEV_KEY,
  deployCode,
  ETHER,
  type Harness,
  KEY2,
  sign1559,
  word,
} from '../helpers.js'

/** SSTORE(calldata[0..32] = slot, calldata[32..64] = value). */
const KV_RUNTIME = hexToBytes('0x6020356000355500')
/** Init code that stores slot 1 and self-destructs in its creating transaction (EIP-6780 deletes it). */
const SELF_DESTRUCT_INIT = hexToBytes('0x600160015533ff')
/** A genesis account with slots but empty (no nonce, balance or code): a zero-value call deletes it (EIP-161). */
const EMPTY_WITH_STORAGE = `0x${'5e'.repeat(20)}` as const

const hex = (b: Uint8Array): string => bytesToHex(b).slice(2)

async function headRoot(h: Harness): Promise<Uint8Array> {
  return (await h.app.info()).lastBlockAppHash
}

/** The flat state, once generated, is complete at the head's root and holds exactly the trie's records. */
async function expectExact(h: Harness): Promise<void> {
  await h.app.flatStateComplete()
  const root = await headRoot(h)
  const marker = (await flatMarker(h.db))!
  expect({ status: marker.status, root: hex(marker.root) }).toEqual({ status: FlatStatus.complete, root: hex(root) })
  expect(await flatRecords(h.db)).toEqual(await trieRecords(h.db, h.app.common, root))
}

function appState() {
  return defaultAppState([
    { address: EMPTY_WITH_STORAGE, balance: '0', storage: { [bytesToHex(word(1n))]: '0x07', [bytesToHex(word(2n))]: '0x08' } },
    { address: `0x${'c0'.repeat(20)}`, balance: '5', code: bytesToHex(KV_RUNTIME), storage: { [bytesToHex(word(3n))]: '0x09' } },
  ])
}

/** A deterministic stream of numbers (xorshift32). */
function random(seed: number): () => number {
  let x = seed
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
}

describe('flat state', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  it('equals the trie after the genesis and after random blocks of stores, deletes, creations and deletions of accounts', async () => {
    h = await createHarness({ appState: appState() })
    const c = h.app.common
    // Before the first Commit the genesis records are complete at the genesis root already.
    await h.finalize([])
    await expectExact(h)
    let devNonce = 0n
    let key2Nonce = 0n
    const contracts: `0x${string}`[] = []
    const deploy: Uint8Array[] = []
    for (let i = 0; i < 3; i++) {
      contracts.push(bytesToHex(createAddress(hexToBytes(DEV_ADDRESS), devNonce)) as `0x${string}`)
      deploy.push(sign1559(c, DEV_KEY, { nonce: devNonce++, data: deployCode(KV_RUNTIME), gasLimit: 200_000n }))
    }
    await h.finalize(deploy)
    await expectExact(h)
    const next = random(32)
    const pick = (n: number) => Math.floor(next() * n)
    for (let block = 0; block < 8; block++) {
      const txs: Uint8Array[] = []
      for (let t = 0; t < 12; t++) {
        const kind = pick(10)
        if (kind < 6) {
          // A store of a small slot (often rewritten) or a delete (value 0).
          const to = contracts[pick(contracts.length)]!
          const value = BigInt(pick(3) === 0 ? 0 : 1 + pick(1000))
          txs.push(
            sign1559(c, DEV_KEY, { nonce: devNonce++, to, data: concatBytes(word(BigInt(pick(16))), word(value)), gasLimit: 100_000n }),
          )
        } else if (kind < 8) {
          txs.push(sign1559(c, KEY2, { nonce: key2Nonce++, to: `0x${(0x1000 + pick(64)).toString(16).padStart(40, '0')}`, value: 1n }))
        } else if (kind < 9) {
          txs.push(sign1559(c, DEV_KEY, { nonce: devNonce++, data: SELF_DESTRUCT_INIT, gasLimit: 200_000n }))
        } else {
          const data = concatBytes(word(BigInt(pick(16))), word(BigInt(1 + pick(9))))
          txs.push(sign1559(c, DEV_KEY, { nonce: devNonce++, data: deployCode(KV_RUNTIME), gasLimit: 200_000n }))
          contracts.push(bytesToHex(createAddress(hexToBytes(DEV_ADDRESS), devNonce - 1n)) as `0x${string}`)
          txs.push(sign1559(c, DEV_KEY, { nonce: devNonce++, to: contracts.at(-1)!, data, gasLimit: 100_000n }))
        }
      }
      const resp = await h.finalize(txs)
      expect(resp.txResults.every((r) => r.code === 0)).toBe(true)
      await expectExact(h)
    }
  })

  it('deletes the slots of a deleted account that had slots (EIP-161), stepping the generation back to it', async () => {
    h = await createHarness({ appState: appState() })
    await h.finalize([])
    const hash = keccak256(hexToBytes(EMPTY_WITH_STORAGE))
    expect(await h.db.get(dataKey(hash))).toBeDefined()
    // A zero-value call touches the empty account: it is deleted with its storage.
    await h.finalize([sign1559(h.app.common, KEY2, { nonce: 0n, to: EMPTY_WITH_STORAGE, value: 0n })])
    await expectExact(h)
    expect(await h.db.get(dataKey(hash))).toBeUndefined()
    expect([...(await flatRecords(h.db)).keys()].filter((k) => k.startsWith(hex(hash)))).toEqual([])
  })

  it('answers reads at the head only, and the same as the trie', async () => {
    h = await createHarness({ appState: appState() })
    await h.finalize([])
    const old = await headRoot(h)
    await h.finalize([sign1559(h.app.common, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: ETHER })])
    const root = await headRoot(h)
    const reader = flatReaderOf(h.db)
    const hash = keccak256(hexToBytes(ADDRESS2))
    const atHead = reader.readAccount(root, hash)
    expect(atHead).toBeInstanceOf(Uint8Array)
    expect(createAccountFromRLP(atHead!).balance).toBe(101n * ETHER)
    expect(reader.readAccount(old, hash)).toBeUndefined()
    expect(reader.readAccount(root, keccak256(hexToBytes(`0x${'77'.repeat(20)}`)))).toBeNull()
    // The state reads of the app at the head and one height below still differ as the heights do.
    expect(await h.app.getBalance(hexToBytes(ADDRESS2), 2)).toBe(101n * ETHER)
    expect(await h.app.getBalance(hexToBytes(ADDRESS2), 1)).toBe(100n * ETHER)
  })

  it('is generated again for the head a revert goes back to, whose root it was not exact for', async () => {
    h = await createHarness({ appState: appState() })
    const c = h.app.common
    await h.finalize([])
    const back = await headRoot(h)
    const contract = createAddress(hexToBytes(DEV_ADDRESS), 0n)
    await h.finalize([sign1559(c, DEV_KEY, { nonce: 0n, data: deployCode(KV_RUNTIME), gasLimit: 200_000n })])
    await h.finalize([
      sign1559(c, DEV_KEY, {
        nonce: 1n,
        to: bytesToHex(contract) as `0x${string}`,
        data: concatBytes(word(4n), word(4n)),
        gasLimit: 100_000n,
      }),
      sign1559(c, KEY2, { nonce: 0n, to: `0x${'99'.repeat(20)}`, value: 1n }),
    ])
    const stage = h.db.createStage()
    await h.app.stageRollback(stage, 1, [])
    await stage.write()
    await h.app.rewound()
    expect(hex(await headRoot(h))).toBe(hex(back))
    await expectExact(h)
    expect(await h.db.get(dataKey(keccak256(contract)))).toBeUndefined()
  })

  it('serves the head reads of accounts and slots from its records, one lookup each', async () => {
    h = await createHarness({ appState: appState() })
    await h.finalize([])
    const contract = hexToBytes(`0x${'c0'.repeat(20)}`)
    expect(await h.app.getStorageAt(contract, word(3n))).toEqual(word(9n))
    // A record changed under the marker (what no write does) shows that the reads take it, not the trie.
    const slotKey = dataKey(concatBytes(keccak256(contract), keccak256(word(3n))))
    await h.db.put(slotKey, hexToBytes('0x0a'))
    const account = createAccountFromRLP((await h.db.get(dataKey(keccak256(hexToBytes(ADDRESS2)))))!)
    account.balance = 1n
    await h.db.put(dataKey(keccak256(hexToBytes(ADDRESS2))), account.serialize())
    await h.reopen()
    expect(await h.app.getStorageAt(contract, word(3n))).toEqual(word(10n))
    expect(await h.app.getBalance(hexToBytes(ADDRESS2))).toBe(1n)
  })

  it('keeps its records over a restart, and generates them again, in slices between blocks, when the marker is not the head', async () => {
    // More accounts than one slice writes, so that blocks commit between slices.
    const extra = Array.from({ length: SLICE_RECORDS * 2 }, (_, i) => ({
      address: `0x${(0x100000 + i).toString(16).padStart(40, '0')}`,
      balance: String(i + 1),
    }))
    h = await createHarness({ appState: defaultAppState(extra) })
    await h.finalize([])
    await h.reopen()
    const marker = decodeFlatMarker((await h.db.get(MARKER_KEY))!)
    expect(marker.status).toBe(FlatStatus.complete)
    await expectExact(h)
    // A database from before the flat state, or whose records are of another state: no marker, stale records.
    await h.db.del(MARKER_KEY)
    await h.db.batch([
      { type: 'put', key: dataKey(new Uint8Array(32).fill(0x01)), value: hexToBytes('0x01') },
      { type: 'put', key: dataKey(new Uint8Array(64).fill(0xfe)), value: hexToBytes('0x02') },
      { type: 'put', key: dataKey(keccak256(hexToBytes(ADDRESS2))), value: hexToBytes('0x03') },
    ])
    await h.reopen()
    const to = extra[5]!.address as `0x${string}`
    for (let n = 0n; n < 3n; n++) await h.finalize([sign1559(h.app.common, KEY2, { nonce: n, to, value: 1n })])
    await expectExact(h)
  })
})
