import { it } from 'vitest'
import { readFileSync } from 'node:fs'
import { createHarness, defaultAppState, sign1559, ETHER, GWEI } from './helpers.js'
import { bytesToHex, hexToBytes, concatBytes, bigintToBytes } from '../../../src/primitives/hex.js'
import { keccak256, privateKeyToAddress, sha256 } from '../../../src/crypto/index.js'
import { executeBlock } from '../../../src/chain/evm/executor.js'

const token = JSON.parse(readFileSync('/tmp/evmperf/token.json', 'utf8'))
const TOKEN = '0x' + '77'.repeat(20)

async function setup() {
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
  for (const r of raws) await h.app.checkTx(r, 'new')
  return { h, raws, N }
}

it('perf split', async () => {
  for (let round = 0; round < 2; round++) {
    const full = await setup()
    let t = performance.now()
    for (let i = 0; i < full.N; i += 500) await full.h.finalize(full.raws.slice(i, i + 500))
    const fullMs = performance.now() - t
    const bare = await setup()
    const app = bare.h.app as any
    t = performance.now()
    for (let i = 0; i < bare.N; i += 500) {
      const txs = bare.raws.slice(i, i + 500).map((r) => app.decodeTx(r))
      await executeBlock(app.vm, app.common, { height: 1 + i / 500, timestamp: 1, gasLimit: 30_000_000n, baseFee: GWEI, coinbase: new Uint8Array(20) }, txs)
      await bare.h.db.commitStaged()
    }
    const bareMs = performance.now() - t
    console.log(`full ${(full.N / fullMs * 1000).toFixed(0)} tx/s, executeBlock only ${(bare.N / bareMs * 1000).toFixed(0)} tx/s`)
    await full.h.close(); await bare.h.close()
  }
}, 600_000)
