import { describe, expect, it } from 'vitest'
import { COMPARE_WORKLOADS, parseBenchArgs, parseCompareTarget, WORKLOADS } from '../../bench/options.js'

describe('parseBenchArgs', () => {
  it('runs every workload on our node by default, 3,000 transactions sent 64 at a time', () => {
    const o = parseBenchArgs([])
    expect(o).toMatchObject({ compare: undefined, soakSeconds: undefined, txs: 3000, sendConcurrency: 64, label: 'nodectl' })
    expect([...o.workloads]).toEqual([...WORKLOADS])
  })

  it('selects the table workloads for --compare, unless --workloads says otherwise', () => {
    expect([...parseBenchArgs(['--compare', 'anvil']).workloads]).toEqual(COMPARE_WORKLOADS)
    expect([...parseBenchArgs(['--compare', 'anvil', '--workloads', 'reads']).workloads]).toEqual(['reads'])
  })

  it('rejects --compare with a remote target, an unknown node or the same label', () => {
    expect(() => parseBenchArgs(['--compare', 'anvil', '--rpc', 'http://127.0.0.1:8545'])).toThrow('takes no --rpc')
    expect(() => parseBenchArgs(['--compare', 'hardhat'])).toThrow('--compare: unknown hardhat')
    expect(() => parseBenchArgs(['--compare', 'anvil', '--label', 'anvil'])).toThrow('names the --compare node')
  })

  it('takes --soak SECONDS on a spawned nodectl only', () => {
    expect(parseBenchArgs(['--soak', '3600']).soakSeconds).toBe(3600)
    expect(() => parseBenchArgs(['--soak', '60', '--compare', 'anvil'])).toThrow('takes no --compare')
    expect(() => parseBenchArgs(['--soak', '60', '--ws', 'ws://127.0.0.1:8546'])).toThrow('takes no --ws')
    expect(() => parseBenchArgs(['--soak', '0'])).toThrow('--soak: want a positive integer')
  })
})

describe('parseCompareTarget', () => {
  it('knows anvil', () => {
    expect(parseCompareTarget('anvil')).toBe('anvil')
  })
})
