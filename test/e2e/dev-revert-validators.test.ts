/**
 * The validator set on a dev chain across evm_revert (docs/dev-chain.md, "Snapshots"): the
 * validator-admin contract can change the set of a dev chain (here it adds a validator with power 1
 * against the dev validator's 10, so the chain keeps committing without its votes), and a revert to
 * a snapshot taken before takes both copies of the set back: consensus's (`/validators`) and the
 * contract's own, which decides what a later setValidator may do (removing the dev validator is again
 * removing the last one). A restart keeps the reverted set.
 */
import { Contract, JsonRpcProvider, Wallet, hexlify } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CometStatus, CometValidators } from '../../src/cli/comet-types.js'
import { ed25519FromSeed } from '../../src/crypto/index.js'
import { VALIDATOR_ADMIN_ADDRESS } from '../../src/evm/validators/validator-admin.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToHex } from '../../src/primitives/hex.js'
import { cometRpc, rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'

const [ADMIN] = devAccounts(1).map((a) => a.privateKey)
const NEW_KEY = ed25519FromSeed(new Uint8Array(32).fill(11)).publicKey
const ABI = ['function setValidator(bytes32 ed25519PubKey, uint64 power)']

describe('the validator set across evm_revert on a dev chain', () => {
  let t: TestNode
  let provider: JsonRpcProvider
  let devValidatorKey: string

  const admin = () => new Contract(bytesToHex(VALIDATOR_ADMIN_ADDRESS), ABI, new Wallet(ADMIN!, provider)).getFunction('setValidator')
  const height = () => t.node.components.blockStore.height()
  const validators = async () => (await cometRpc<CometValidators>(t, 'validators', { height: String(height()) })).validators
  /** What the contract says to removing the dev validator, as eth_call runs it against its copy of the set. */
  const removeDevValidator = () => admin().staticCall(devValidatorKey, 0n)

  beforeAll(async () => {
    t = await startTestNode()
    await waitFor(() => height() >= 2, 20_000, 'height 2')
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    const status = await cometRpc<CometStatus>(t, 'status')
    devValidatorKey = hexlify(Buffer.from(status.validator_info.pub_key.value, 'base64'))
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('takes the set back to the snapshot’s, in consensus and in the validator-admin contract, and keeps it after a restart', async () => {
    await expect(removeDevValidator()).rejects.toThrow(/cannot remove the last validator/)
    const snapshot = (await rpc<string>(t.url, 'evm_snapshot')).result!

    const receipt = await (await admin()(hexlify(NEW_KEY), 1n)).wait()
    expect(receipt.status).toBe(1)
    await waitFor(() => height() >= receipt.blockNumber + 2, 20_000, 'the new set in force')
    expect(await validators()).toHaveLength(2)
    // With a second validator, the dev validator is no longer the last one.
    await expect(removeDevValidator()).resolves.toEqual([])

    expect((await rpc(t.url, 'evm_revert', [snapshot])).result).toBe(true)
    expect(await validators()).toHaveLength(1)
    await expect(removeDevValidator()).rejects.toThrow(/cannot remove the last validator/)

    // The chain goes on with its one validator, and the contract's set is the one stored.
    expect(
      (await (await new Wallet(ADMIN!, provider).sendTransaction({ to: bytesToHex(NEW_KEY.slice(0, 20)), value: 1n })).wait())!.status,
    ).toBe(1)
    const home = t.home
    await t.stop()
    t = await startTestNode({ home })
    provider.destroy()
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    expect(await validators()).toHaveLength(1)
    await expect(removeDevValidator()).rejects.toThrow(/cannot remove the last validator/)
  })
})
