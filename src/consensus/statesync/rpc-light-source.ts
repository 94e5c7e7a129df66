/**
 * Light blocks from the `[statesync] rpc_servers` (CometBFT's light client `provider/http`): `/commit` gives
 * the signed header, `/validators` the set (paged), `/consensus_params` the params, all in CometBFT's JSON.
 * The first server that answers serves a request; a server that fails is skipped for the next one. Nothing
 * here is trusted: the light client verifies what comes back.
 */
import type { ConsensusParams } from '../../abci/types.js'
import { ValidatorSet } from '../../comet/validator-set.js'
import type { BlockID, Commit, CommitSig, Header, Validator } from '../../comet/types.js'
import { decodeConsensusParams } from '../../config/consensus-params.js'
import { base64ToBytes, hexToBytes } from '../../primitives/hex.js'
import { parseRfc3339 } from '../../utils/time.js'
import type { LightBlock } from './light-verify.js'
import type { LightBlockSource } from './light-state-provider.js'

/** CometBFT's largest `/validators` page. */
const VALIDATORS_PER_PAGE = 100
/** A server silent this long is skipped. */
const REQUEST_TIMEOUT_MS = 10_000

type Json = Record<string, unknown>

export class RpcLightSource implements LightBlockSource {
  private readonly urls: string[]

  /** `servers`: "host:port", "tcp://host:port" or "http(s)://host:port". */
  constructor(servers: readonly string[]) {
    this.urls = servers.map(normalizeServer)
  }

  async lightBlock(height: number): Promise<LightBlock> {
    return this.firstAnswer(async (url) => {
      const result = await call(url, 'commit', { height })
      const signed = result.signed_header as Json | undefined
      if (!signed?.header || !signed.commit) throw new Error(`no signed header at height ${height}`)
      const validators: Validator[] = []
      for (let page = 1; ; page++) {
        const v = await call(url, 'validators', { height, page, per_page: VALIDATORS_PER_PAGE })
        validators.push(...(v.validators as Json[]).map(decodeValidator))
        if (validators.length >= Number(v.total)) break
      }
      return {
        header: decodeHeader(signed.header as Json),
        commit: decodeCommit(signed.commit as Json),
        validators: ValidatorSet.restore(validators),
      }
    })
  }

  async consensusParams(height: number): Promise<ConsensusParams> {
    return this.firstAnswer(async (url) => decodeConsensusParams((await call(url, 'consensus_params', { height })).consensus_params))
  }

  private async firstAnswer<T>(ask: (url: string) => Promise<T>): Promise<T> {
    const errors: string[] = []
    for (const url of this.urls) {
      try {
        return await ask(url)
      } catch (err) {
        errors.push(`${url}: ${(err as Error).message}`)
      }
    }
    throw new Error(`no [statesync] rpc_servers answered: ${errors.join('; ')}`)
  }
}

function normalizeServer(server: string): string {
  const s = server.trim().replace(/^tcp:\/\//, 'http://')
  return /^https?:\/\//.test(s) ? s.replace(/\/$/, '') : `http://${s}`
}

async function call(url: string, method: string, params: Record<string, number>): Promise<Json> {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))
  const response = await fetch(`${url}/${method}?${query}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  const body = (await response.json()) as { result?: Json; error?: { message: string; data?: string } }
  if (body.error || !body.result) throw new Error(`${method}: ${body.error?.data ?? body.error?.message ?? `HTTP ${response.status}`}`)
  return body.result
}

const hex = (v: unknown): Uint8Array => hexToBytes(String(v ?? ''))

function decodeBlockId(j: Json): BlockID {
  const parts = j.parts as Json
  return { hash: hex(j.hash), partSetHeader: { total: Number(parts.total), hash: hex(parts.hash) } }
}

function decodeHeader(j: Json): Header {
  const version = j.version as Json
  return {
    version: { block: BigInt(String(version.block)), app: BigInt(String(version.app ?? '0')) },
    chainId: String(j.chain_id),
    height: Number(j.height),
    time: parseRfc3339(String(j.time)),
    lastBlockId: decodeBlockId(j.last_block_id as Json),
    lastCommitHash: hex(j.last_commit_hash),
    dataHash: hex(j.data_hash),
    validatorsHash: hex(j.validators_hash),
    nextValidatorsHash: hex(j.next_validators_hash),
    consensusHash: hex(j.consensus_hash),
    appHash: hex(j.app_hash),
    lastResultsHash: hex(j.last_results_hash),
    evidenceHash: hex(j.evidence_hash),
    proposerAddress: hex(j.proposer_address),
  }
}

function decodeCommit(j: Json): Commit {
  return {
    height: Number(j.height),
    round: Number(j.round),
    blockId: decodeBlockId(j.block_id as Json),
    signatures: (j.signatures as Json[]).map(
      (s): CommitSig => ({
        blockIdFlag: Number(s.block_id_flag) as CommitSig['blockIdFlag'],
        validatorAddress: hex(s.validator_address),
        timestamp: parseRfc3339(String(s.timestamp)),
        signature: s.signature ? base64ToBytes(String(s.signature)) : new Uint8Array(0),
      }),
    ),
  }
}

function decodeValidator(j: Json): Validator {
  const pubKey = j.pub_key as Json
  return {
    address: hex(j.address),
    pubKey: base64ToBytes(String(pubKey.value)),
    votingPower: BigInt(String(j.voting_power)),
    proposerPriority: BigInt(String(j.proposer_priority)),
  }
}
