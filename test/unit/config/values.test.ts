import { describe, expect, it } from 'vitest'
import { DEFAULT_CHAIN_ID, DEV_CHAIN_ID, parseChainId } from '../../../src/config/chain-id.js'
import { parseMinimumGasPrices } from '../../../src/config/gas-price.js'
import { formatHostPort, formatLaddr, parseHostPort, parseLaddr } from '../../../src/config/listen-address.js'

describe('chain ids', () => {
  it.each([
    [DEFAULT_CHAIN_ID, 9000n],
    [DEV_CHAIN_ID, 31337n],
    ['evmos_9001-2', 9001n],
    ['a_1-1', 1n],
  ])('%s has EVM chain id %d', (id, evm) => {
    expect(parseChainId(id)).toBe(evm)
  })

  it.each([
    'nodectl',
    'nodectl_9000',
    'nodectl-9000-1',
    'Nodectl_9000-1',
    'nodectl_0-1',
    'nodectl_9000-0',
    'nodectl_09-1',
    'node2_9000-1',
    '_9000-1',
    'nodectl_9000-1 ',
  ])('refuses %j', (id) => {
    expect(() => parseChainId(id)).toThrow(/invalid chain id/)
  })

  it('refuses EVM chain ids past 2^53 - 1', () => {
    expect(parseChainId(`a_${Number.MAX_SAFE_INTEGER}-1`)).toBe(BigInt(Number.MAX_SAFE_INTEGER))
    expect(() => parseChainId(`a_${BigInt(Number.MAX_SAFE_INTEGER) + 1n}-1`)).toThrow(/invalid chain id .*larger than/)
  })

  it('refuses ids longer than CometBFT allows', () => {
    expect(() => parseChainId('a'.repeat(45) + '_9000-1')).toThrow(/longer than 50/)
  })
})

describe('listen addresses', () => {
  it('parses host:port', () => {
    expect(parseHostPort('127.0.0.1:8545')).toEqual({ host: '127.0.0.1', port: 8545 })
    expect(parseHostPort(':8545')).toEqual({ host: '0.0.0.0', port: 8545 })
    expect(parseHostPort('[::1]:0')).toEqual({ host: '::1', port: 0 })
    expect(parseHostPort('localhost:65535')).toEqual({ host: 'localhost', port: 65535 })
  })

  it.each(['127.0.0.1', '127.0.0.1:', 'x:y', 'host:65536', '::1:80', 'tcp://127.0.0.1:80', 'h:-1'])('refuses %j', (text) => {
    expect(() => parseHostPort(text)).toThrow(`cannot parse "${text}"`)
  })

  it('parses CometBFT laddrs', () => {
    expect(parseLaddr('tcp://127.0.0.1:26657')).toEqual({ host: '127.0.0.1', port: 26657 })
    expect(parseLaddr('')).toBeUndefined()
    expect(() => parseLaddr('tcp://x:y')).toThrow('cannot parse "tcp://x:y": port "y" is not a number')
    expect(() => parseLaddr('127.0.0.1:26657')).toThrow('cannot parse "127.0.0.1:26657": want tcp://host:port')
    expect(() => parseLaddr('unix:///tmp/s')).toThrow(/unix sockets are not supported/)
  })

  it('formats both forms', () => {
    expect(formatHostPort({ host: '::1', port: 1 })).toBe('[::1]:1')
    expect(formatLaddr({ host: '0.0.0.0', port: 26656 })).toBe('tcp://0.0.0.0:26656')
    expect(formatLaddr(undefined)).toBe('')
  })
})

describe('minimum-gas-prices', () => {
  it.each([
    ['', 0n],
    ['0', 0n],
    ['1000000000', 1_000_000_000n],
    ['0anodectl', 0n],
    ['25anodectl', 25n],
    ['1gwei', 1_000_000_000n],
    ['1.5gwei', 1_500_000_000n],
    ['0.5anodectl', 1n],
    ['7wei', 7n],
  ])('%j is %d wei', (text, wei) => {
    expect(parseMinimumGasPrices(text)).toBe(wei)
  })

  it.each([
    ['abc', /cannot parse "abc"/],
    ['-1', /cannot parse "-1"/],
    ['1uatom', /unknown denomination "uatom"/],
    ['1anodectl,2gwei', /more than one price/],
    ['1.anodectl', /cannot parse/],
  ])('refuses %j', (text, message) => {
    expect(() => parseMinimumGasPrices(text)).toThrow(message)
  })
})
