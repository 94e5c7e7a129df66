import { describe, expect, it } from 'vitest'
import { bigStateHolder } from '../../bench/big-state-home.js'
import { BIG_STATE_WORKLOADS, COMPARE_WORKLOADS, parseBenchArgs, parseCompareTargets, WORKLOADS } from '../../bench/options.js'

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
    expect(() => parseBenchArgs(['--compare', 'geth'])).toThrow('--compare: unknown geth')
    expect(() => parseBenchArgs(['--compare', 'anvil,anvil'])).toThrow('names a node twice')
    expect(() => parseBenchArgs(['--compare', 'anvil', '--label', 'anvil'])).toThrow('names the --compare node')
  })

  it('takes --kill-storm N (and --seed S) on a spawned nodectl only', () => {
    expect(parseBenchArgs(['--kill-storm', '100', '--seed', '27'])).toMatchObject({ killStorm: 100, seed: 27 })
    expect(parseBenchArgs([]).killStorm).toBeUndefined()
    expect(() => parseBenchArgs(['--kill-storm', '5', '--rpc', 'http://127.0.0.1:8545'])).toThrow('takes no --rpc')
    expect(() => parseBenchArgs(['--kill-storm', '5', '--soak', '60'])).toThrow('takes no --soak')
    expect(() => parseBenchArgs(['--kill-storm', '5', '--workloads', 'reads'])).toThrow('takes no --workloads')
    expect(() => parseBenchArgs(['--testnet', '4', '--kill-storm', '5'])).toThrow('takes no --kill-storm')
    expect(() => parseBenchArgs(['--kill-storm', '0'])).toThrow('--kill-storm: want a positive integer')
    expect(() => parseBenchArgs(['--kill-storm', '5', '--seed', '1.5'])).toThrow('--seed: want an integer')
  })

  it('takes --big-state N (and --big-state-cache DIR) with call and transfers only, on nodes of its own', () => {
    const o = parseBenchArgs(['--big-state', '1000000', '--big-state-cache', '/tmp/big'])
    expect(o).toMatchObject({ bigState: 1_000_000, bigStateCache: '/tmp/big' })
    expect([...o.workloads]).toEqual(BIG_STATE_WORKLOADS)
    expect([...parseBenchArgs(['--big-state', '10', '--workloads', 'call']).workloads]).toEqual(['call'])
    expect(() => parseBenchArgs(['--big-state', '10', '--workloads', 'reads'])).toThrow('call,transfers only, not reads')
    expect(() => parseBenchArgs(['--big-state', '10', '--compare', 'anvil'])).toThrow('takes no --compare')
    expect(() => parseBenchArgs(['--big-state', '10', '--rpc', 'http://127.0.0.1:8545'])).toThrow('takes no --rpc')
    expect(() => parseBenchArgs(['--big-state', '10', '--soak', '60'])).toThrow('takes no --soak')
    expect(() => parseBenchArgs(['--testnet', '4', '--big-state', '10'])).toThrow('takes no --big-state')
    expect(() => parseBenchArgs(['--big-state-cache', '/tmp/big'])).toThrow('--big-state-cache is for --big-state')
    expect(() => parseBenchArgs(['--big-state', '0'])).toThrow('--big-state: want a positive integer')
  })

  it('picks every holder of --big-state once in N calls, as scripts/big-genesis.mjs numbers them', () => {
    const n = 1000
    const picked = new Set(Array.from({ length: n }, (_, i) => bigStateHolder(i, n)))
    expect(picked.size).toBe(n)
    expect(bigStateHolder(0, n)).toBe('0x0000000000000000000000000000000010000000')
    expect([...picked].every((a) => BigInt(a) >= 0x10000000n && BigInt(a) < 0x10000000n + BigInt(n))).toBe(true)
  })

  it('takes --soak SECONDS on a spawned nodectl only', () => {
    expect(parseBenchArgs(['--soak', '3600']).soakSeconds).toBe(3600)
    expect(() => parseBenchArgs(['--soak', '60', '--compare', 'anvil'])).toThrow('takes no --compare')
    expect(() => parseBenchArgs(['--soak', '60', '--ws', 'ws://127.0.0.1:8546'])).toThrow('takes no --ws')
    expect(() => parseBenchArgs(['--soak', '0'])).toThrow('--soak: want a positive integer')
  })
})

describe('--testnet', () => {
  it('takes a number of validators ≥ 1, off by default', () => {
    expect(parseBenchArgs([]).testnet).toBeUndefined()
    expect(parseBenchArgs(['--testnet', '4'])).toMatchObject({ testnet: 4, txs: 3000, port: 18545 })
    expect(parseBenchArgs(['--testnet', '1']).testnet).toBe(1)
    expect(() => parseBenchArgs(['--testnet', '0'])).toThrow('--testnet: want a number of validators ≥ 1, got "0"')
    expect(() => parseBenchArgs(['--testnet', '2.5'])).toThrow('--testnet: want a number')
  })

  it('refuses --compare, a remote target, --soak and --workloads', () => {
    expect(() => parseBenchArgs(['--testnet', '4', '--compare', 'anvil'])).toThrow(
      '--testnet spawns its own nodes and runs its own workload: it takes no --compare',
    )
    expect(() => parseBenchArgs(['--testnet', '4', '--rpc', 'http://127.0.0.1:8545'])).toThrow('takes no --rpc')
    expect(() => parseBenchArgs(['--testnet', '4', '--soak', '60'])).toThrow('takes no --soak')
    expect(() => parseBenchArgs(['--testnet', '4', '--workloads', 'reads'])).toThrow('takes no --workloads')
  })

  it('runs our engine unless --engine cometbft, which is for --testnet only', () => {
    expect(parseBenchArgs(['--testnet', '4']).engine).toBe('nodectl')
    expect(parseBenchArgs(['--testnet', '4', '--engine', 'cometbft']).engine).toBe('cometbft')
    expect(() => parseBenchArgs(['--testnet', '4', '--engine', 'tendermint'])).toThrow('--engine: want nodectl or cometbft')
    expect(() => parseBenchArgs(['--engine', 'cometbft'])).toThrow('a single node under CometBFT is --compare cometbft')
  })

  it('sends --warm-up N transfers before the measured batch, none by default, for --testnet only', () => {
    expect(parseBenchArgs(['--testnet', '4']).warmUp).toBe(0)
    expect(parseBenchArgs(['--testnet', '4', '--warm-up', '3000']).warmUp).toBe(3000)
    expect(() => parseBenchArgs(['--testnet', '4', '--warm-up', '1.5'])).toThrow('--warm-up: want a number of transfers ≥ 0, got "1.5"')
    expect(() => parseBenchArgs(['--warm-up', '100'])).toThrow('--warm-up is for --testnet')
  })

  it('profiles the nodes with --cpu-prof DIR, of --testnet under our engine only', () => {
    expect(parseBenchArgs(['--testnet', '4']).cpuProfDir).toBeUndefined()
    expect(parseBenchArgs(['--testnet', '4', '--cpu-prof', '/tmp/prof']).cpuProfDir).toBe('/tmp/prof')
    expect(() => parseBenchArgs(['--cpu-prof', '/tmp/prof'])).toThrow('--cpu-prof profiles the nodes of --testnet under our engine')
    expect(() => parseBenchArgs(['--testnet', '4', '--engine', 'cometbft', '--cpu-prof', '/tmp/prof'])).toThrow('--cpu-prof profiles')
  })

  it("keeps the last node's ports (--port + 10·(N−1) + 3) within 65535", () => {
    expect(parseBenchArgs(['--testnet', '4', '--port', '65500']).testnet).toBe(4)
    expect(() => parseBenchArgs(['--testnet', '5', '--port', '65500'])).toThrow('up to port 65543')
  })
})

describe('parseCompareTargets', () => {
  it('knows anvil, hardhat and cometbft, one or several in the order given', () => {
    expect(parseCompareTargets('anvil')).toEqual(['anvil'])
    expect(parseCompareTargets('cometbft')).toEqual(['cometbft'])
    expect(parseCompareTargets('hardhat,anvil')).toEqual(['hardhat', 'anvil'])
  })
})
