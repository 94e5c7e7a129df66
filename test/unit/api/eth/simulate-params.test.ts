import { describe, expect, it } from 'vitest'
import { simulatePayload } from '../../../../src/api/eth/simulate-params.js'
import { bytesToHex } from '../../../../src/primitives/hex.js'

const ADDRESS = '0x' + 'ab'.repeat(20)
const IDENTITY = '0x0000000000000000000000000000000000000004'
const SLOT = '0x' + '00'.repeat(31) + '01'

describe('eth_simulateV1 payload codec', () => {
  it('defaults: no blocks, every flag false, a block without overrides or calls', () => {
    expect(simulatePayload({})).toEqual({ blocks: [], traceTransfers: false, validation: false, returnFullTransactions: false })
    expect(simulatePayload({ blockStateCalls: [{}] }).blocks).toEqual([{ blockOverrides: undefined, stateOverrides: [], calls: [] }])
  })

  it('reads the flags, the calls as eth_call arguments and the block overrides', () => {
    const payload = simulatePayload({
      traceTransfers: true,
      validation: true,
      returnFullTransactions: true,
      blockStateCalls: [
        {
          blockOverrides: {
            number: '0x10',
            time: '0x20',
            gasLimit: '0x30',
            feeRecipient: ADDRESS,
            baseFeePerGas: '0x7',
            prevRandao: '0x2a',
            blobBaseFee: '0x1',
            withdrawals: [],
          },
          calls: [{ from: ADDRESS, to: ADDRESS, value: '0x1', input: '0x1234', nonce: '0x3', chainId: '0x1' }],
        },
      ],
    })
    expect(payload).toMatchObject({ traceTransfers: true, validation: true, returnFullTransactions: true })
    const [block] = payload.blocks
    expect(block!.blockOverrides).toMatchObject({ number: 16n, time: 32n, gasLimit: 48n, baseFee: 7n })
    expect(bytesToHex(block!.blockOverrides!.coinbase!)).toBe(ADDRESS)
    expect(bytesToHex(block!.blockOverrides!.random!)).toBe('0x' + '00'.repeat(31) + '2a')
    expect(block!.calls).toHaveLength(1)
    expect(block!.calls[0]).toMatchObject({ value: 1n, nonce: 3n, chainId: 1n })
  })

  it('prevRandao as a 32-byte hash is read as geth reads it', () => {
    const hash = '0x' + '11'.repeat(32)
    const [block] = simulatePayload({ blockStateCalls: [{ blockOverrides: { prevRandao: hash } }] }).blocks
    expect(bytesToHex(block!.blockOverrides!.random!)).toBe(hash)
  })

  it('state overrides keep the precompile moves with their accounts', () => {
    const [block] = simulatePayload({
      blockStateCalls: [
        {
          stateOverrides: { [IDENTITY]: { movePrecompileToAddress: ADDRESS }, [ADDRESS]: { balance: '0x5', stateDiff: { [SLOT]: SLOT } } },
        },
      ],
    }).blocks
    const [moved, funded] = block!.stateOverrides
    expect(bytesToHex(moved!.address)).toBe(IDENTITY)
    expect(bytesToHex(moved!.movePrecompileToAddress!)).toBe(ADDRESS)
    expect(funded!.movePrecompileToAddress).toBeUndefined()
    expect(funded!.account.balance).toBe(5n)
    expect(funded!.account.stateDiff).toHaveLength(1)
  })

  it("refuses bad shapes with Go's decoder messages", () => {
    expect(() => simulatePayload([])).toThrow('json: cannot unmarshal array into Go value of type ethapi.simOpts')
    expect(() => simulatePayload({ blockStateCalls: {} })).toThrow(
      'json: cannot unmarshal object into Go struct field simOpts.blockStateCalls of type []ethapi.simBlock',
    )
    expect(() => simulatePayload({ validation: 'yes' })).toThrow(
      'json: cannot unmarshal string into Go struct field simOpts.validation of type bool',
    )
    expect(() => simulatePayload({ blockStateCalls: [{ calls: [{ gas: 'x' }] }] })).toThrow(
      /Go struct field TransactionArgs\.gas of type hexutil\.Uint64/,
    )
    expect(() => simulatePayload({ blockStateCalls: [{ stateOverrides: { [IDENTITY]: { movePrecompileToAddress: '0x12' } } }] })).toThrow(
      /hex string has length 2, want 40/,
    )
    expect(() => simulatePayload({ blockStateCalls: [{ blockOverrides: { withdrawals: [{ index: '0x0' }] } }] })).toThrow(
      'withdrawals are not supported: the chain has none',
    )
  })
})
