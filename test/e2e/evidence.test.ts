/**
 * Evidence against a real dev node: DuplicateVoteEvidence for a past height, signed with the dev
 * validator's own key and sent as cmtjson to `broadcast_evidence`, is committed in a block (its header's
 * evidence_hash covering it, the `block` route showing it), announced to a WebSocket subscriber of
 * `tm.event='NewEvidence'`, and refused when sent again; evidence with a bad signature is refused.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeEvidence } from '../../src/comet/encoding.js'
import { hashEvidence } from '../../src/comet/hash.js'
import { voteSignBytes } from '../../src/comet/sign-bytes.js'
import { SignedMsgType, type DuplicateVoteEvidence, type Vote } from '../../src/comet/types.js'
import { ed25519Sign, randomBytes, sha256 } from '../../src/crypto/index.js'
import { loadValidatorKey, type ValidatorKey } from '../../src/keystore/validator-key.js'
import { bytesToBase64, bytesToUpperHex, compareBytes } from '../../src/primitives/hex.js'
import { parseRfc3339 } from '../../src/utils/time.js'
import { startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { RawWsClient } from '../helpers/ws-client.js'
import type { CometEventMessage, CometHeader, CometValidators } from '../../src/cli/comet-types.js'

/** A consensus JSON-RPC reply whose result has the shape `R`. */
type Reply<R> = { result?: R; error?: { code: number; message: string; data?: string } }

/** The members of a `block` result these tests read. */
interface BlockResult {
  block: { header: CometHeader & { evidence_hash: string }; evidence: { evidence: unknown[] } }
}

/** The NewEvidence event pushed to the WebSocket subscriber (with the id of its `subscribe` call). */
interface NewEvidenceFrame {
  id: unknown
  result: CometEventMessage & { data: { value: { height: string } }; events: Record<string, string[]> }
}

/** A consensus JSON-RPC call over HTTP POST with params by name. */
async function cometCall<R>(url: string, method: string, params: Record<string, unknown>): Promise<Reply<R>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await res.json()) as Reply<R>
}

/** Evidence as the chain types, and as the cmtjson a CometBFT client sends (written out by hand). */
interface Crafted {
  ev: DuplicateVoteEvidence
  json: { type: string; value: Record<string, unknown> }
}

describe('evidence against a dev node', () => {
  let t: TestNode
  let url: string
  let ws: RawWsClient
  let key: ValidatorKey

  beforeAll(async () => {
    t = await startTestNode()
    url = t.addresses.cometRpc!.replace(/^tcp:\/\//, 'http://')
    await waitFor(() => t.node.components.blockStore.height() >= 3, 20_000, 'height 3')
    ws = await RawWsClient.connect(`${url.replace(/^http/, 'ws')}/websocket`)
    key = await loadValidatorKey(join(t.home, 'config', 'priv_validator_key.json'))
  })
  afterAll(async () => {
    await ws?.close()
    await t?.destroy()
  })

  /** Two precommits of the dev validator at `height` for different blocks, with the powers and block time of that height. */
  async function craft(height: number): Promise<Crafted> {
    const { header } = (await cometCall<BlockResult>(url, 'block', { height: String(height) })).result!.block
    const vals = (await cometCall<CometValidators>(url, 'validators', { height: String(height) })).result!.validators
    const index = vals.findIndex((v) => v.address === bytesToUpperHex(key.address))
    expect(index).toBeGreaterThanOrEqual(0)
    const total = vals.reduce((sum, v) => sum + BigInt(v.voting_power), 0n)
    const vote = (): Vote => {
      const v: Vote = {
        type: SignedMsgType.Precommit,
        height,
        round: 0,
        blockId: { hash: randomBytes(32), partSetHeader: { total: 1, hash: randomBytes(32) } },
        timestamp: parseRfc3339(header.time),
        validatorAddress: key.address,
        validatorIndex: index,
        signature: new Uint8Array(0),
      }
      return { ...v, signature: ed25519Sign(key.seed, voteSignBytes(header.chain_id, v)) }
    }
    // vote_a is the vote whose BlockID sorts first (here: the lower block hash).
    const [voteA, voteB] = [vote(), vote()].sort((a, b) => compareBytes(a.blockId.hash, b.blockId.hash)) as [Vote, Vote]
    const ev: DuplicateVoteEvidence = {
      voteA,
      voteB,
      totalVotingPower: total,
      validatorPower: BigInt(vals[index]!.voting_power),
      timestamp: parseRfc3339(header.time),
    }
    const voteJson = (v: Vote) => ({
      type: v.type,
      height: String(v.height),
      round: v.round,
      block_id: {
        hash: bytesToUpperHex(v.blockId.hash),
        parts: { total: v.blockId.partSetHeader.total, hash: bytesToUpperHex(v.blockId.partSetHeader.hash) },
      },
      timestamp: header.time,
      validator_address: bytesToUpperHex(v.validatorAddress),
      validator_index: v.validatorIndex,
      signature: bytesToBase64(v.signature),
    })
    const json = {
      type: 'tendermint/DuplicateVoteEvidence',
      value: {
        vote_a: voteJson(voteA),
        vote_b: voteJson(voteB),
        TotalVotingPower: String(total),
        ValidatorPower: vals[index]!.voting_power,
        Timestamp: header.time,
      },
    }
    return { ev, json }
  }

  it('commits broadcast evidence: NewEvidence over WebSocket, the block and its evidence_hash, then refuses it again', async () => {
    const sub = await ws.request('subscribe', ["tm.event='NewEvidence'"])
    expect(sub.result).toEqual({})
    const { ev, json } = await craft(2)
    const sent = await cometCall(url, 'broadcast_evidence', { evidence: json })
    expect(sent.error).toBeUndefined()
    expect(sent.result).toEqual({ hash: bytesToBase64(sha256(encodeEvidence(ev))) })

    const push = await ws.waitForFrame(
      (f: NewEvidenceFrame) => f.id === sub.id && f.result?.data?.type === 'tendermint/event/NewEvidence',
      20_000,
    )
    const height = Number(push.result.data.value.height)
    expect(height).toBeGreaterThan(2)
    expect(push.result.query).toBe("tm.event='NewEvidence'")
    expect(push.result.events['tm.event']).toEqual(['NewEvidence'])
    // The wire form of CometBFT: votes as types.Vote (extensions null), the Go field names for the rest.
    const vote = (v: Record<string, unknown>) => ({ ...v, extension: null, extension_signature: null })
    const expected = {
      type: json.type,
      value: {
        ...json.value,
        vote_a: vote(json.value.vote_a as Record<string, unknown>),
        vote_b: vote(json.value.vote_b as Record<string, unknown>),
      },
    }
    expect(push.result.data.value).toEqual({ height: String(height), evidence: expected })

    const { block } = (await cometCall<BlockResult>(url, 'block', { height: String(height) })).result!
    expect(block.evidence.evidence).toEqual([expected])
    expect(block.header.evidence_hash).toBe(bytesToUpperHex(hashEvidence([ev])))

    const again = await cometCall(url, 'broadcast_evidence', { evidence: json })
    expect(again.error?.data).toBe('failed to add evidence: Invalid evidence: evidence was already committed')
  })

  it('refuses evidence whose vote signature does not verify', async () => {
    const { json } = await craft(3)
    const voteB = json.value.vote_b as Record<string, unknown>
    const bad = {
      ...json,
      value: { ...json.value, vote_b: { ...voteB, signature: (json.value.vote_a as Record<string, unknown>).signature } },
    }
    const reply = await cometCall(url, 'broadcast_evidence', { evidence: bad })
    expect(reply.result).toBeUndefined()
    expect(reply.error?.data).toBe('failed to add evidence: Invalid evidence: verifying VoteB: invalid signature')
    expect(t.node.components.engine.pendingEvidenceCount).toBe(0)
  })
})
