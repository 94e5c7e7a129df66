/**
 * The validator-admin system contract against a real dev node: dev account 0 (the genesis
 * validator_admin) adds a validator with ethers, the update shows in block_results, fires a
 * `ValidatorSetUpdates` WebSocket event and is in `validators` from H+2; then it
 * removes it again. The new validator gets power 1 against the dev validator's 10 so the chain keeps
 * committing without its votes (10/11 > 2/3).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Contract, JsonRpcProvider, Wallet, hexlify } from 'ethers'
import { VALIDATOR_ADMIN_ADDRESS } from '../../src/evm/validators/validator-admin.js'
import { validatorAddress } from '../../src/comet/validator-set.js'
import { ed25519FromSeed } from '../../src/crypto/index.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToBase64, bytesToHex, bytesToUpperHex } from '../../src/primitives/hex.js'
import { startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { RawWsClient } from '../helpers/ws-client.js'
import { jsonOf, runCli } from '../helpers/cli.js'
import TxSetValidator, { type SetValidatorResult } from '../../src/commands/tx/set-validator.js'
import type { CometBlockResults, CometEventMessage, CometStatus, CometValidators } from '../../src/cli/comet-types.js'

const [KEY0, KEY1] = devAccounts(2).map((a) => a.privateKey)
const NEW_KEY = ed25519FromSeed(new Uint8Array(32).fill(7)).publicKey
const NEW_ADDRESS = bytesToUpperHex(validatorAddress(NEW_KEY))
const ABI = ['function setValidator(bytes32 ed25519PubKey, uint64 power)']

/** The ValidatorSetUpdates event pushed to the WebSocket subscriber. */
interface ValidatorSetUpdatesFrame {
  result: CometEventMessage & { data: { value: { validator_updates: CometValidators['validators'] } } }
}

/** The result of a consensus JSON-RPC call, of the shape `R` the caller expects; throws on an error reply. */
async function cometCall<R>(url: string, method: string, params: Record<string, unknown>): Promise<R> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: R; error?: unknown }
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
  return body.result as R
}

describe('validator-admin system contract on a dev node', () => {
  let t: TestNode
  let url: string
  let provider: JsonRpcProvider
  let ws: RawWsClient

  beforeAll(async () => {
    t = await startTestNode()
    url = t.addresses.cometRpc!.replace(/^tcp:\/\//, 'http://')
    await waitFor(() => t.node.components.blockStore.height() >= 2, 20_000, 'height 2')
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    ws = await RawWsClient.connect(`${url.replace(/^http/, 'ws')}/websocket`)
    expect(await ws.call('subscribe', ["tm.event='ValidatorSetUpdates'"])).toEqual({})
  })
  afterAll(async () => {
    await ws?.close()
    provider?.destroy()
    await t?.destroy()
  })

  const validatorsAt = async (height: number) =>
    (await cometCall<CometValidators>(url, 'validators', { height: String(height) })).validators

  it('refuses an account that is not the admin', async () => {
    const other = new Contract(bytesToHex(VALIDATOR_ADMIN_ADDRESS), ABI, new Wallet(KEY1!, provider))
    await expect(other.getFunction('setValidator').staticCall(hexlify(NEW_KEY), 1n)).rejects.toThrow(/caller is not the validator admin/)
  })

  it('adds a validator from H+2 and removes it again', async () => {
    const admin = new Contract(bytesToHex(VALIDATOR_ADMIN_ADDRESS), ABI, new Wallet(KEY0!, provider))
    const before = await validatorsAt(t.node.components.blockStore.height())
    expect(before.length).toBe(1)

    // add with power 1
    const receipt = await (await admin.getFunction('setValidator')(hexlify(NEW_KEY), 1n)).wait()
    expect(receipt.status).toBe(1)
    const h = receipt.blockNumber as number
    await waitFor(() => t.node.components.blockStore.height() >= h + 2, 20_000, `height ${h + 2}`)
    const results = await cometCall<CometBlockResults>(url, 'block_results', { height: String(h) })
    expect(results.validator_updates).toEqual([
      { pub_key: { Sum: { type: 'tendermint.crypto.PublicKey_Ed25519', value: { ed25519: bytesToBase64(NEW_KEY) } } }, power: '1' },
    ])

    const note = await ws.waitForFrame((f: ValidatorSetUpdatesFrame) => f.result?.data?.type?.endsWith('/event/ValidatorSetUpdates'))
    expect(note.result.query).toBe("tm.event='ValidatorSetUpdates'")
    expect(note.result.data.type).toBe('tendermint/event/ValidatorSetUpdates')
    const update = note.result.data.value.validator_updates[0]
    expect(update).toMatchObject({
      address: NEW_ADDRESS,
      pub_key: { type: 'tendermint/PubKeyEd25519', value: bytesToBase64(NEW_KEY) },
      voting_power: '1',
    })
    expect(update.proposer_priority).toMatch(/^-?\d+$/)

    expect((await validatorsAt(h + 1)).length).toBe(1)
    const withNew = await validatorsAt(h + 2)
    expect(withNew.map((v) => v.address).sort()).toEqual([before[0]!.address, NEW_ADDRESS].sort())
    expect(withNew.find((v) => v.address === NEW_ADDRESS)!.voting_power).toBe('1')

    // remove it (power 0)
    const removed = await (await admin.getFunction('setValidator')(hexlify(NEW_KEY), 0n)).wait()
    expect(removed.status).toBe(1)
    const h2 = removed.blockNumber as number
    await waitFor(() => t.node.components.blockStore.height() >= h2 + 2, 20_000, `height ${h2 + 2}`)
    const results2 = await cometCall<CometBlockResults>(url, 'block_results', { height: String(h2) })
    expect(results2.validator_updates).toHaveLength(1)
    expect(results2.validator_updates![0].power).toBeUndefined()
    expect((await validatorsAt(h2 + 2)).map((v) => v.address)).toEqual([before[0]!.address])
  })

  it('never lets the set become empty', async () => {
    const admin = new Contract(bytesToHex(VALIDATOR_ADMIN_ADDRESS), ABI, new Wallet(KEY0!, provider))
    const [only] = await validatorsAt(t.node.components.blockStore.height())
    const status = await cometCall<CometStatus>(url, 'status', {})
    expect(status.validator_info.address).toBe(only!.address)
    const pubKey = Buffer.from(status.validator_info.pub_key.value, 'base64')
    await expect(admin.getFunction('setValidator').staticCall(hexlify(pubKey), 0n)).rejects.toThrow(/cannot remove the last validator/)
  })

  it("nodectl tx set-validator sends the call, and reports the node's reason when refused", async () => {
    const node = ['--node', t.url]
    const key = ed25519FromSeed(new Uint8Array(32).fill(9)).publicKey
    const added = jsonOf(
      await runCli(TxSetValidator, ['--pubkey', bytesToBase64(key), '--power', '1', '--from', KEY0!, ...node, '--json']),
    ) as SetValidatorResult
    expect(added).toMatchObject({
      status: 1,
      power: '1',
      validator: bytesToUpperHex(validatorAddress(key)),
      effectiveHeight: added.blockNumber + 2,
    })
    await waitFor(() => t.node.components.blockStore.height() >= added.blockNumber + 2, 20_000, 'H+2')
    expect((await validatorsAt(added.blockNumber + 2)).length).toBe(2)
    const removed = jsonOf(
      await runCli(TxSetValidator, ['--pubkey', bytesToHex(key), '--power', '0', '--from', KEY0!.slice(2), ...node, '--json']),
    ) as SetValidatorResult
    expect(removed.status).toBe(1)
    const refused = await runCli(TxSetValidator, ['--pubkey', bytesToHex(key), '--power', '1', '--from', KEY1!, ...node])
    expect(refused.exitCode).toBe(1)
    expect(String(refused.error?.message)).toMatch(/caller is not the validator admin/)
  })
})
