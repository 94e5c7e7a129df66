/** `http-vhosts` (geth's virtualHostHandler): which Host headers the EVM HTTP server answers. */
import { describe, expect, it } from 'vitest'
import { createHostCheck } from '../../../src/rpc/vhosts.js'

describe('createHostCheck', () => {
  it('allows listed names with or without a port, any case; refuses others', () => {
    const allowed = createHostCheck(['localhost', 'Node.Example'])
    for (const host of ['localhost', 'localhost:8545', 'LOCALHOST:1', 'node.example', 'node.example:443'])
      expect(allowed(host), host).toBe(true)
    for (const host of ['evil.example', 'evil.example:8545', 'localhost.evil.example', 'node.example.evil:1'])
      expect(allowed(host), host).toBe(false)
  })

  it('allows IP addresses (v4, v6 bracketed or bare) and a missing Host whatever the list', () => {
    const allowed = createHostCheck(['localhost'])
    for (const host of ['127.0.0.1', '127.0.0.1:8545', '10.1.2.3:1', '[::1]:8545', '[::1]', '::1', undefined, ''])
      expect(allowed(host), String(host)).toBe(true)
  })

  it('allows any name with `*`, none but IPs with an empty list', () => {
    expect(createHostCheck(['*'])('anything.example:1')).toBe(true)
    const none = createHostCheck([])
    expect([none('localhost'), none('127.0.0.1')]).toEqual([false, true])
  })
})
