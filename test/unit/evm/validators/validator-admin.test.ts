import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EvmApplication } from '../../../../src/evm/app.js'
import { ExecutionRevertedError } from '../../../../src/evm/errors.js'
import { parseAppState } from '../../../../src/evm/genesis.js'
import {
  SET_VALIDATOR_GAS,
  SET_VALIDATOR_SELECTOR,
  VALIDATOR_ADMIN_ADDRESS,
  decodeSetValidator,
  encodeRevertReason,
  encodeSetValidator,
  runSetValidator,
  type CallFrame,
} from '../../../../src/evm/validators/validator-admin.js'
import { checkChangeSet } from '../../../../src/evm/validators/validator-registry.js'
import { decodeRevertReason } from '../../../../src/evm/vm-errors.js'
import { TxCode } from '../../../../src/evm/txs/tx-codes.js'
import type { ValidatorUpdate } from '../../../../src/abci/types.js'
import { validatorAddress } from '../../../../src/comet/validator-set.js'
import { Database } from '../../../../src/db/database.js'
import { ed25519FromSeed, keccak256 } from '../../../../src/crypto/index.js'
import { bytesToHex, bytesToUpperHex, hexToBytes, utf8ToBytes } from '../../../../src/primitives/hex.js'
import type { FinalizeBlockResponse } from '../../../../src/abci/application.js'
import {
  ADDRESS2,
  CHAIN_ID,
  DEV_ADDRESS,
  DEV_KEY,
  KEY2,
  PROPOSER,
  blockHash,
  consensusParams,
  defaultAppState,
  sign1559,
} from '../helpers.js'

const ADMIN_HEX = bytesToHex(VALIDATOR_ADMIN_ADDRESS) as `0x${string}`
const key = (n: number) => ed25519FromSeed(new Uint8Array(32).fill(n)).publicKey
const V0 = key(1)
const V1 = key(2)
const V2 = key(3)
const admin = hexToBytes(DEV_ADDRESS)
const frame = (over: Partial<CallFrame> = {}): CallFrame => ({
  caller: admin,
  value: 0n,
  depth: 0,
  isStatic: false,
  delegatecall: false,
  ...over,
})
const setOf = (...vs: ValidatorUpdate[]) => new Map(vs.map((v) => [bytesToUpperHex(validatorAddress(v.pubKey)), v]))

describe('setValidator encoding', () => {
  it('uses the Solidity selector and ABI words', () => {
    expect(bytesToHex(SET_VALIDATOR_SELECTOR)).toBe(bytesToHex(keccak256(utf8ToBytes('setValidator(bytes32,uint64)')).slice(0, 4)))
    const data = encodeSetValidator(V1, 10n)
    expect(data.length).toBe(68)
    expect(decodeSetValidator(data)).toEqual({ pubKey: V1, power: 10n })
  })

  it('rejects malformed calldata', () => {
    expect(decodeSetValidator(hexToBytes('0xdeadbeef'))).toBe('unknown function selector')
    expect(decodeSetValidator(encodeSetValidator(V1, 1n).slice(0, 40))).toMatch(/invalid calldata length/)
    const big = encodeSetValidator(V1, 1n)
    big[40] = 1
    expect(decodeSetValidator(big)).toBe('power does not fit a uint64')
    expect(() => encodeSetValidator(new Uint8Array(31), 1n)).toThrow()
  })

  it('encodes revert reasons as Error(string)', () => {
    expect(decodeRevertReason(encodeRevertReason('caller is not the validator admin'))).toBe('caller is not the validator admin')
  })
})

describe('runSetValidator', () => {
  const recorded: ValidatorUpdate[] = []
  const sink = {
    propose: (u: ValidatorUpdate) => {
      recorded.push(u)
      return undefined
    },
  }

  it('accepts the admin at depth 0 and refuses everyone else', () => {
    recorded.length = 0
    expect(runSetValidator(admin, frame(), encodeSetValidator(V1, 5n), sink)).toBeUndefined()
    expect(recorded).toEqual([{ pubKey: V1, power: 5n }])
    expect(runSetValidator(admin, frame({ caller: hexToBytes(ADDRESS2) }), encodeSetValidator(V1, 5n), sink)).toBe(
      'caller is not the validator admin',
    )
    expect(runSetValidator(undefined, frame(), encodeSetValidator(V1, 5n), sink)).toBe('caller is not the validator admin')
    expect(runSetValidator(admin, frame({ isStatic: true }), encodeSetValidator(V1, 5n), sink)).toMatch(/static/)
    expect(runSetValidator(admin, frame({ value: 1n }), encodeSetValidator(V1, 5n), sink)).toMatch(/value/)
    expect(runSetValidator(admin, frame({ depth: 1 }), encodeSetValidator(V1, 5n), sink)).toMatch(/directly by a transaction/)
    expect(runSetValidator(admin, frame({ delegatecall: true }), encodeSetValidator(V1, 5n), sink)).toMatch(/directly by a transaction/)
    expect(runSetValidator(admin, frame(), encodeSetValidator(new Uint8Array(32), 5n), sink)).toMatch(/all zero/)
    expect(runSetValidator(admin, frame(), encodeSetValidator(V1, 1n << 62n), sink)).toMatch(/exceeds the maximum/)
    expect(recorded.length).toBe(1)
  })
})

describe('checkChangeSet', () => {
  const base = setOf({ pubKey: V0, power: 10n })
  it('follows UpdateWithChangeSet', () => {
    expect(checkChangeSet(base, [{ pubKey: V1, power: 1n }])).toBeUndefined()
    expect(checkChangeSet(base, [{ pubKey: V0, power: 0n }])).toMatch(/set would be empty/)
    expect(checkChangeSet(base, [{ pubKey: V1, power: 0n }])).toMatch(/not in the set/)
    // removing the only validator is fine when another one joins in the same block
    expect(
      checkChangeSet(base, [
        { pubKey: V1, power: 3n },
        { pubKey: V0, power: 0n },
      ]),
    ).toBeUndefined()
    // an addition cancelled in the same block is no change
    expect(
      checkChangeSet(base, [
        { pubKey: V1, power: 3n },
        { pubKey: V1, power: 0n },
      ]),
    ).toBeUndefined()
    expect(
      checkChangeSet(base, [
        { pubKey: V1, power: 3n },
        { pubKey: V1, power: 0n },
        { pubKey: V0, power: 0n },
      ]),
    ).toMatch(/empty/)
    expect(checkChangeSet(undefined, [{ pubKey: V1, power: 1n }])).toMatch(/unknown/)
  })
})

describe('validator-admin system contract in the EVM application', () => {
  let dir: string
  let db: Database
  let app: EvmApplication
  let height = 1
  const appState = { ...defaultAppState(), evm: { ...defaultAppState().evm, validator_admin: DEV_ADDRESS } }
  let nonce = 0n

  async function open(): Promise<void> {
    db = new Database({ path: dir })
    await db.open()
    app = await EvmApplication.create({ db, chainId: CHAIN_ID, genesis: parseAppState(appState) })
  }
  async function start(): Promise<void> {
    dir = mkdtempSync(join(tmpdir(), 'nodectl-valadmin-'))
    height = 1
    nonce = 0n
    await open()
    await app.initChain({
      time: { seconds: 1_700_000_000, nanos: 0 },
      chainId: CHAIN_ID,
      consensusParams: consensusParams(),
      validators: [{ pubKey: V0, power: 10n }],
      appStateBytes: utf8ToBytes(JSON.stringify(appState)),
      initialHeight: 1,
    })
  }
  async function finalize(txs: Uint8Array[]): Promise<FinalizeBlockResponse> {
    const resp = await app.finalizeBlock({
      txs,
      decidedLastCommit: { round: 0, votes: [] },
      hash: blockHash(height),
      height,
      time: { seconds: 1_700_000_000 + height * 2, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: PROPOSER,
    })
    await app.commit()
    height++
    return resp
  }
  const adminTx = (pubKey: Uint8Array, power: bigint, over: { gasLimit?: bigint; value?: bigint } = {}) =>
    sign1559(app.common, DEV_KEY, {
      nonce: nonce++,
      to: ADMIN_HEX,
      data: encodeSetValidator(pubKey, power),
      gasLimit: over.gasLimit ?? 100_000n,
      value: over.value,
    })

  afterEach(async () => {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('records the admin update, charges the fixed gas and returns it from FinalizeBlock', async () => {
    await start()
    const resp = await finalize([adminTx(V1, 1n)])
    expect(resp.txResults[0]!.code).toBe(TxCode.OK)
    expect(resp.validatorUpdates).toEqual([{ pubKey: V1, power: 1n }])
    const calldataGas = encodeSetValidator(V1, 1n).reduce((g, b) => g + (b === 0 ? 4n : 16n), 0n)
    expect(resp.txResults[0]!.gasUsed).toBe(21_000n + calldataGas + SET_VALIDATOR_GAS)
    // the next block changes nothing
    expect((await finalize([])).validatorUpdates).toEqual([])
  })

  it('reverts for anyone but the admin, with value, or on a bad input, recording nothing', async () => {
    await start()
    const other = sign1559(app.common, KEY2, { nonce: 0n, to: ADMIN_HEX, data: encodeSetValidator(V1, 1n), gasLimit: 100_000n })
    const withValue = adminTx(V1, 1n, { value: 1n })
    const garbage = sign1559(app.common, DEV_KEY, { nonce: nonce++, to: ADMIN_HEX, data: hexToBytes('0x12345678'), gasLimit: 100_000n })
    const removeLast = adminTx(V0, 0n)
    const removeUnknown = adminTx(V2, 0n)
    const resp = await finalize([other, withValue, garbage, removeLast, removeUnknown])
    expect(resp.txResults.map((r) => r.code)).toEqual([1, 1, 1, 1, 1].map(() => TxCode.ExecutionFailed))
    expect(resp.txResults[0]!.log).toBe('execution reverted: caller is not the validator admin')
    expect(resp.txResults[1]!.log).toMatch(/does not accept value/)
    expect(resp.txResults[2]!.log).toMatch(/unknown function selector/)
    expect(resp.txResults[3]!.log).toMatch(/cannot remove the last validator/)
    expect(resp.txResults[4]!.log).toMatch(/is not in the set/)
    expect(resp.validatorUpdates).toEqual([])
  })

  it('keeps the last update per key, and reverts when out of gas', async () => {
    await start()
    const resp = await finalize([adminTx(V1, 1n), adminTx(V2, 2n), adminTx(V1, 3n), adminTx(V2, 5n, { gasLimit: 60_000n })])
    expect(resp.txResults.map((r) => r.code)).toEqual([TxCode.OK, TxCode.OK, TxCode.OK, TxCode.ExecutionFailed])
    expect(resp.validatorUpdates).toEqual([
      { pubKey: V2, power: 2n },
      { pubKey: V1, power: 3n },
    ])
  })

  it('validates against the set after earlier blocks, across a restart', async () => {
    await start()
    await finalize([adminTx(V1, 1n)])
    await db.close()
    await open()
    // V0 may now leave (V1 remains); then V1 may not
    const resp = await finalize([adminTx(V0, 0n), adminTx(V1, 0n)])
    expect(resp.txResults.map((r) => r.code)).toEqual([TxCode.OK, TxCode.ExecutionFailed])
    expect(resp.validatorUpdates).toEqual([{ pubKey: V0, power: 0n }])
  })

  it('answers eth_call and estimateGas', async () => {
    await start()
    const data = encodeSetValidator(V1, 1n)
    expect((await app.call({ from: admin, to: VALIDATOR_ADMIN_ADDRESS, input: data })).returnValue.length).toBe(0)
    await expect(app.call({ from: hexToBytes(ADDRESS2), to: VALIDATOR_ADMIN_ADDRESS, input: data })).rejects.toThrow(ExecutionRevertedError)
    const gas = await app.estimateGas({ from: admin, to: VALIDATOR_ADMIN_ADDRESS, input: data })
    expect(gas).toBeGreaterThanOrEqual(21_000n + SET_VALIDATOR_GAS)
    // eth_call never records an update
    expect((await finalize([])).validatorUpdates).toEqual([])
  })
})
