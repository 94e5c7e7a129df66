/**
 * The transactions the node signs for its accounts: the type geth's ToTransaction picks, a digest that
 * the sender's signature over it turns into raw bytes ethers decodes to the same fields and sender.
 */
import { Transaction } from 'ethers'
import { describe, expect, it } from 'vitest'
import { createUnsignedTx, type UnsignedTxFields } from '../../../../src/evm/txs/unsigned-tx.js'
import { signHash } from '../../../../src/crypto/index.js'
import { devAccounts } from '../../../../src/keystore/dev-accounts.js'
import { hexToBytes } from '../../../../src/primitives/hex.js'

const { privateKey, address } = devAccounts(1)[0]!
const TO = hexToBytes('0x' + '42'.repeat(20))
const base: UnsignedTxFields = {
  chainId: 31337n,
  nonce: 7n,
  gasLimit: 50_000n,
  to: TO,
  value: 5n,
  data: new Uint8Array([1, 2]),
  accessList: undefined,
  gasPrice: undefined,
  maxFeePerGas: undefined,
  maxPriorityFeePerGas: undefined,
}

function signAndDecode(fields: UnsignedTxFields): { type: number; tx: Transaction } {
  const unsigned = createUnsignedTx(fields)
  const raw = unsigned.serializeSigned(signHash(unsigned.signingHash, hexToBytes(privateKey)))
  return { type: unsigned.type, tx: Transaction.from('0x' + Buffer.from(raw).toString('hex')) }
}

describe('createUnsignedTx', () => {
  it('fee caps → EIP-1559', () => {
    const { type, tx } = signAndDecode({ ...base, maxFeePerGas: 100n, maxPriorityFeePerGas: 2n })
    expect(type).toBe(2)
    expect(tx).toMatchObject({
      type: 2,
      chainId: 31337n,
      nonce: 7,
      gasLimit: 50_000n,
      maxFeePerGas: 100n,
      maxPriorityFeePerGas: 2n,
      value: 5n,
      data: '0x0102',
    })
    expect(tx.from).toBe(address)
  })

  it('gasPrice with an access list → EIP-2930', () => {
    const accessList = [{ address: TO, storageKeys: [new Uint8Array(32)] }]
    const { type, tx } = signAndDecode({ ...base, gasPrice: 9n, accessList })
    expect(type).toBe(1)
    expect(tx.type).toBe(1)
    expect(tx.gasPrice).toBe(9n)
    expect(tx.accessList).toEqual([{ address: '0x' + '42'.repeat(20), storageKeys: ['0x' + '00'.repeat(32)] }])
    expect(tx.from).toBe(address)
  })

  it('gasPrice alone → legacy, EIP-155 protected (v = 35 + 2·chainId + recovery)', () => {
    const { type, tx } = signAndDecode({ ...base, gasPrice: 9n })
    expect(type).toBe(0)
    expect(tx.type).toBe(0)
    expect(tx.chainId).toBe(31337n)
    expect([35n + 2n * 31337n, 36n + 2n * 31337n]).toContain(tx.signature!.networkV)
    expect(tx.from).toBe(address)
  })

  it('a contract creation has no recipient', () => {
    const { tx } = signAndDecode({ ...base, to: undefined, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })
    expect(tx.to).toBeNull()
  })
})
