/**
 * The ports tests choose ahead (test/helpers/ports.ts): never in the kernel's ephemeral range, free when
 * chosen, and a start that finds one taken all the same is retried.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { busyPortOf } from '../../helpers/testnet-processes.js'
import { drawPortBlock, ephemeralPortRange, isAddressInUse, isPortFree, pickPortBlock, withPortRetry } from '../../helpers/ports.js'
import { seededRandom as seeded } from '../../helpers/seeded-random.js'

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

describe('test ports', () => {
  it('reads the ephemeral range at run time, with a fallback covering Linux and BSD', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nodectl-ports-'))
    try {
      await writeFile(join(dir, 'range'), '40000\t50000\n')
      expect(ephemeralPortRange(join(dir, 'range'))).toEqual({ low: 40_000, high: 50_000 })
      expect(ephemeralPortRange(join(dir, 'missing'))).toEqual({ low: 32_768, high: 65_535 })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('draws whole blocks outside the ephemeral and reserved ranges, at or above 10000', () => {
    const random = seeded(27)
    for (const ephemeral of [
      { low: 32_768, high: 60_999 },
      { low: 10_000, high: 64_000 },
      { low: 1024, high: 65_000 },
    ]) {
      for (let i = 0; i < 2000; i++) {
        const first = drawPortBlock(40, ephemeral, random)
        const last = first + 39
        expect(first).toBeGreaterThanOrEqual(10_000)
        expect(last).toBeLessThanOrEqual(65_535)
        expect(last < ephemeral.low || first > ephemeral.high, `${first}..${last} in ${ephemeral.low}-${ephemeral.high}`).toBe(true)
        expect(last < 26_600 || first > 26_699).toBe(true)
        expect(last < 18_545 || first > 18_599).toBe(true)
      }
    }
    expect(() => drawPortBlock(2, { low: 1, high: 65_535 })).toThrow('no 2 consecutive ports outside the ephemeral range 1–65535')
  })

  it('picks a block that is free and outside the range this machine uses now', async () => {
    const { low, high } = ephemeralPortRange()
    const first = await pickPortBlock(4)
    expect(first + 3 < low || first > high).toBe(true)
    for (let p = first; p < first + 4; p++) expect(await isPortFree(p)).toBe(true)
    const server = await listen(first)
    try {
      expect(await isPortFree(first)).toBe(false)
    } finally {
      server.close()
    }
  })

  it('retries a start that fails on a busy port with new ports, and gives up on any other error', async () => {
    const taken = await pickPortBlock(1)
    const server = await listen(taken)
    try {
      const tried: number[] = []
      const bound = await withPortRetry(async (attempt) => {
        // The first attempt gets the taken port, as when another program bound it after the check.
        const port = attempt === 1 ? taken : await pickPortBlock(1)
        tried.push(port)
        return listen(port)
      })
      const port = (bound.address() as { port: number }).port
      bound.close()
      expect(tried[0]).toBe(taken)
      expect(tried).toHaveLength(2)
      expect(port).toBe(tried[1])

      let calls = 0
      await expect(withPortRetry(async () => listen(taken).finally(() => calls++), { attempts: 3 })).rejects.toSatisfy(isAddressInUse)
      expect(calls).toBe(3)
      calls = 0
      await expect(withPortRetry(async () => Promise.reject(new Error(`no ${++calls}`)))).rejects.toThrow('no 1')
    } finally {
      server.close()
    }
  })

  it('finds EADDRINUSE in a cause chain, and the port in nodectl start’s errors', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' })
    expect(isAddressInUse(new Error('start failed', { cause: inUse }))).toBe(true)
    expect(isAddressInUse(new Error('Some configured addresses failed to be listened on: listen EADDRINUSE: address'))).toBe(true)
    expect(isAddressInUse(new Error('other'))).toBe(false)
    const rpc =
      'Error: --json-rpc.ws-address: 127.0.0.1:23456 is already in use (is another node running?); choose another address with --json-rpc.ws-address or stop the other process\n'
    expect(busyPortOf(rpc)).toBe(23456)
    const libp2p =
      'Error: cannot start the node: Some configured addresses failed to be listened on, you may need to remove one\n' +
      '  /ip4/127.0.0.1/tcp/26176: Error: listen EADDRINUSE: address already in use 127.0.0.1:26176\n'
    expect(busyPortOf(libp2p)).toBe(26176)
    expect(busyPortOf('Error: --home: not initialised')).toBeUndefined()
  })
})
