import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadSenderKey } from '../../../src/cli/sender-key.js'
import { parseEd25519PubKey } from '../../../src/cli/tx-values.js'
import { bytesToBase64, bytesToHex } from '../../../src/primitives/hex.js'

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

describe('tx signing inputs', () => {
  it('reads --pubkey as hex or base64', () => {
    const key = new Uint8Array(32).fill(7)
    expect(parseEd25519PubKey(bytesToHex(key))).toEqual(key)
    expect(parseEd25519PubKey(bytesToHex(key).slice(2))).toEqual(key)
    expect(parseEd25519PubKey(bytesToBase64(key))).toEqual(key)
    expect(() => parseEd25519PubKey('0x1234')).toThrow(/invalid --pubkey/)
  })

  it('reads --from as hex or from a key file', async () => {
    expect(bytesToHex(await loadSenderKey(KEY))).toBe(KEY)
    expect(bytesToHex(await loadSenderKey(KEY.slice(2)))).toBe(KEY)
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-key-'))
    try {
      writeFileSync(join(dir, 'admin.key'), `${KEY}\n`)
      expect(bytesToHex(await loadSenderKey(join(dir, 'admin.key')))).toBe(KEY)
      writeFileSync(join(dir, 'bad.key'), 'nope')
      await expect(loadSenderKey(join(dir, 'bad.key'))).rejects.toThrow(/does not hold a private key/)
      await expect(loadSenderKey(join(dir, 'missing'))).rejects.toThrow(/want a private key/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
