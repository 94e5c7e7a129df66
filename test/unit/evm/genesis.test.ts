import { describe, expect, it } from 'vitest'
import { parseAppState, validateAppState, GenesisError } from '../../../src/evm/genesis.js'
import { calcBaseFee, initialBaseFee } from '../../../src/evm/fee-market.js'
import { bytesToHex } from '../../../src/primitives/hex.js'

const ADDR = '0x' + '12'.repeat(20)

describe('parseAppState', () => {
  const valid = {
    evm: {
      accounts: [
        {
          address: ADDR,
          balance: '1000',
          nonce: '3',
          code: '0x6000',
          storage: { '0x01': '0x2a', ['0x' + '00'.repeat(31) + '02']: '0x00' },
        },
      ],
      validator_admin: ADDR,
      fee_recipients: { ['AB'.repeat(20)]: ADDR },
    },
    fee_market: { base_fee: '7', elasticity_multiplier: 4, base_fee_change_denominator: 50, min_gas_price: '3', no_base_fee: false },
  }

  it('parses every field', () => {
    const g = parseAppState(JSON.stringify(valid))
    expect(g.accounts).toHaveLength(1)
    const a = g.accounts[0]!
    expect(bytesToHex(a.address)).toBe(ADDR)
    expect(a.balance).toBe(1000n)
    expect(a.nonce).toBe(3n)
    expect(bytesToHex(a.code!)).toBe('0x6000')
    // zero values are not stored; slots are left-padded to 32 bytes
    expect(a.storage.map(([k, v]) => [bytesToHex(k), bytesToHex(v)])).toEqual([['0x' + '00'.repeat(31) + '01', '0x2a']])
    expect(bytesToHex(g.validatorAdmin!)).toBe(ADDR)
    expect(bytesToHex(g.feeRecipients.get('AB'.repeat(20))!)).toBe(ADDR)
    expect(g.feeMarket).toEqual({ baseFee: 7n, elasticityMultiplier: 4n, baseFeeChangeDenominator: 50n, minGasPrice: 3n, noBaseFee: false })
  })

  it('defaults the fee market and accepts an empty app_state', () => {
    const g = parseAppState('')
    expect(g.accounts).toEqual([])
    expect(g.feeMarket).toEqual({
      baseFee: 1_000_000_000n,
      elasticityMultiplier: 2n,
      baseFeeChangeDenominator: 8n,
      minGasPrice: 0n,
      noBaseFee: false,
    })
  })

  const bad: [string, unknown, string][] = [
    [
      'balance',
      {
        evm: {
          accounts: [
            { address: ADDR, balance: '1' },
            { address: '0x' + '34'.repeat(20), balance: '1' },
            { address: '0x' + '56'.repeat(20), balance: '1.5' },
          ],
        },
      },
      'app_state.evm.accounts[2].balance: not a decimal integer',
    ],
    [
      'address',
      { evm: { accounts: [{ address: '0x12', balance: '1' }] } },
      'app_state.evm.accounts[0].address: not a 0x-prefixed 20-byte hex address',
    ],
    [
      'duplicate',
      {
        evm: {
          accounts: [
            { address: ADDR, balance: '1' },
            { address: ADDR.toUpperCase().replace('0X', '0x'), balance: '1' },
          ],
        },
      },
      'app_state.evm.accounts[1].address: duplicate account',
    ],
    [
      'code',
      { evm: { accounts: [{ address: ADDR, balance: '1', code: '6000' }] } },
      'app_state.evm.accounts[0].code: not 0x-prefixed hex bytes',
    ],
    [
      'storage',
      { evm: { accounts: [{ address: ADDR, balance: '1', storage: { '0xzz': '0x01' } }] } },
      'app_state.evm.accounts[0].storage.0xzz: key is not 0x-prefixed hex of at most 32 bytes',
    ],
    [
      'nonce',
      { evm: { accounts: [{ address: ADDR, balance: '1', nonce: '-1' }] } },
      'app_state.evm.accounts[0].nonce: not a decimal integer',
    ],
    [
      'recipient key',
      { evm: { accounts: [], fee_recipients: { abc: ADDR } } },
      'app_state.evm.fee_recipients.abc: key must be a validator address in upper-case hex (40 digits)',
    ],
    [
      'elasticity',
      { evm: { accounts: [] }, fee_market: { elasticity_multiplier: 0 } },
      'app_state.fee_market.elasticity_multiplier: not a positive integer',
    ],
    ['base fee', { evm: { accounts: [] }, fee_market: { base_fee: 5 } }, ''],
    ['no_base_fee', { evm: { accounts: [] }, fee_market: { no_base_fee: 'yes' } }, 'app_state.fee_market.no_base_fee: not a boolean'],
    ['accounts', { evm: { accounts: {} } }, 'app_state.evm.accounts: not an array'],
    ['json', '{', 'app_state: invalid JSON'],
  ]
  it.each(bad)('names the field: %s', (_name, value, message) => {
    if (message === '') {
      expect(validateAppState(value)).toBeUndefined()
      return
    }
    expect(() => parseAppState(value)).toThrow(GenesisError)
    expect(validateAppState(value)).toContain(message)
  })
})

describe('fee market', () => {
  const fm = { baseFee: 1_000_000_000n, elasticityMultiplier: 2n, baseFeeChangeDenominator: 8n, minGasPrice: 0n, noBaseFee: false }
  const parent = (gasUsed: bigint, baseFee = 1_000_000_000n) => ({ gasLimit: 30_000_000n, gasUsed, baseFee })

  it('follows geth CalcBaseFee', () => {
    expect(calcBaseFee(parent(15_000_000n), fm)).toBe(1_000_000_000n)
    expect(calcBaseFee(parent(30_000_000n), fm)).toBe(1_125_000_000n)
    expect(calcBaseFee(parent(0n), fm)).toBe(875_000_000n)
    expect(calcBaseFee(parent(20_000_000n), fm)).toBe(1_000_000_000n + (1_000_000_000n * 5_000_000n) / 15_000_000n / 8n)
    // the increase is at least 1 wei
    expect(calcBaseFee(parent(15_000_001n, 8n), fm)).toBe(9n)
  })

  it('never goes below the minimum gas price', () => {
    const floor = { ...fm, minGasPrice: 900_000_000n }
    expect(calcBaseFee(parent(0n), floor)).toBe(900_000_000n)
    expect(initialBaseFee({ ...fm, baseFee: 1n, minGasPrice: 5n })).toBe(5n)
  })

  it('is zero without a base fee', () => {
    expect(calcBaseFee(parent(30_000_000n), { ...fm, noBaseFee: true })).toBe(0n)
    expect(initialBaseFee({ ...fm, noBaseFee: true })).toBe(0n)
  })
})
