import { describe, it, expect } from 'vitest'
import { createHarness, sign1559, DEV_KEY, ADDRESS2, ETHER, DEV_ADDRESS } from './helpers.js'
import { hexToBytes, bytesToHex } from '../../../src/primitives/hex.js'

describe('smoke', () => {
  it('runs', async () => {
    const h = await createHarness()
    const c = h.app.common
    const resp = await h.finalize([sign1559(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: ETHER })])
    console.log(resp.txResults, resp.appHash)
    console.log(await h.app.getBalance(hexToBytes(ADDRESS2)))
    console.log(await h.app.getBlock(1))
    console.log(await h.app.getBlock(0))
    const b = await h.app.getBlock(1)
    console.log(await h.app.getReceipt(b!.transactions[0]!))
    console.log(await h.app.getNonce(hexToBytes(DEV_ADDRESS)))
    await h.close()
  })
})
