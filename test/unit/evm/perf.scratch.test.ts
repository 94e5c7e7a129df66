import { it } from 'vitest'
import { readFileSync } from 'node:fs'
import { profile } from './prof.js'
import { createHarness, defaultAppState, sign1559, ETHER, GWEI } from './helpers.js'
import { bytesToHex, hexToBytes, concatBytes, bigintToBytes } from '../../../src/primitives/hex.js'
import { keccak256, privateKeyToAddress, sha256 } from '../../../src/crypto/index.js'

const token = JSON.parse(readFileSync('/tmp/evmperf/token.json', 'utf8'))
const TOKEN = '0x' + '77'.repeat(20)

it('perf', async () => {
  const keys = Array.from({ length: 64 }, (_, i) => sha256(new TextEncoder().encode('k' + i)))
  const addrs = keys.map((k) => bytesToHex(privateKeyToAddress(k)))
  const storage: Record<string, string> = {}
  for (const a of addrs) storage[bytesToHex(keccak256(concatBytes(bigintToBytes(BigInt(a), 32), new Uint8Array(32))))] = '0x' + (10n ** 24n).toString(16)
  const appState = defaultAppState([...addrs.map((a) => ({ address: a, balance: (1000n * ETHER).toString() })), { address: TOKEN, balance: '0', code: '0x' + token.runtime, storage }])
  const h = await createHarness({ appState })
  const c = h.app.common
  const N = 3000
  const raws: Uint8Array[] = []
  const nonces = new Array(64).fill(0n)
  for (let i = 0; i < N; i++) {
    const s = i % 64
    const to = '0x' + (i % 200 + 1).toString(16).padStart(40, '0')
    const data = concatBytes(hexToBytes('0xa9059cbb'), bigintToBytes(BigInt(to), 32), bigintToBytes(1n, 32))
    raws.push(sign1559(c, keys[s]!, { nonce: nonces[s]++, to: TOKEN as `0x${string}`, data, gasLimit: 60000n, maxFeePerGas: 100n * GWEI }))
  }
  const sm = (h.app as any).vm.stateManager
  const times: Record<string, number> = { root: 0, commit: 0, runTx: 0 }
  const wrap = (obj: any, name: string, key: string) => { const orig = obj[name].bind(obj); obj[name] = async (...a: any[]) => { const t0 = performance.now(); try { return await orig(...a) } finally { times[key]! += performance.now() - t0 } } }
  wrap(sm, 'getStateRoot', 'root'); wrap(sm, 'commit', 'commit')
  const { keccak_256 } = await import('@noble/hashes/sha3.js')
  const buf = new Uint8Array(532); let t0 = performance.now(); for (let i = 0; i < 10000; i++) keccak_256(buf); console.log('keccak532 us', (performance.now() - t0) / 10000 * 1000)
  let t = performance.now()
  await (async () => { for (const r of raws) { const res = await h.app.checkTx(r, 'new'); if (res.code) throw new Error(res.log) } })()
  const prep = performance.now() - t
  t = performance.now()
  await profile('exec', async () => { for (let i = 0; i < N; i += 500) {
    const resp = await h.finalize(raws.slice(i, i + 500))
    const bad = resp.txResults.filter((r) => r.code !== 0)
    if (bad.length) throw new Error(bad[0]!.log)
  } })
  const exec = performance.now() - t
  console.log(times)
  console.log(`ERC20: checkTx ${(prep / N * 1000).toFixed(0)}us/tx, exec ${(N / exec * 1000).toFixed(0)} tx/s`)
  // calls
  const data = concatBytes(hexToBytes('0x70a08231'), bigintToBytes(BigInt(addrs[0]!), 32))
  await h.app.call({ to: hexToBytes(TOKEN), data })
  const copy = await [...(h.app as any).calls.copies.values()][0]
  let dirty = 0, gets = 0
  const origGet = h.db.get.bind(h.db); (h.db as any).get = (k: Uint8Array) => { gets++; return origGet(k) }
  for (let i = 0; i < 200; i++) { await h.app.call({ to: hexToBytes(TOKEN), data: concatBytes(hexToBytes('0x70a08231'), bigintToBytes(BigInt(addrs[i % 64]!), 32)) }); if (copy.dirty) dirty++ }
  console.log('dirty', dirty, 'gets', gets)
  t = performance.now()
  const M = 5000
  await profile('calls', async () => { for (let i = 0; i < M; i++) await h.app.call({ to: hexToBytes(TOKEN), data: concatBytes(hexToBytes('0x70a08231'), bigintToBytes(BigInt(addrs[i % 64]!), 32)) }) })
  const ct = performance.now() - t
  console.log(`calls: ${(M / ct * 1000).toFixed(0)}/s`)
  t = performance.now()
  for (let i = 0; i < 2000; i++) await h.app.getBalance(hexToBytes(addrs[i % 64]!))
  console.log(`getBalance: ${(2000 / (performance.now() - t) * 1000).toFixed(0)}/s`)
  await h.close()
}, 600_000)
