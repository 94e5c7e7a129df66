import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bytesToBase64, bytesToUpperHex, utf8ToBytes } from '../../../../src/primitives/hex.js'
import { hashTx } from '../../../../src/comet/hash.js'
import { merkleProofs, verifyMerkleProof } from '../../../../src/comet/merkle.js'
import { sha256 } from '../../../../src/crypto/index.js'
import { encodeEvidence } from '../../../../src/comet/encoding.js'
import { SignedMsgType, type Vote } from '../../../../src/comet/types.js'
import { encodeEvidence as encodeEvidenceJson } from '../../../../src/api/comet/json.js'
import { FakeBackend, TXS } from './fake-backend.js'
import { get, post, startHarness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h.server.close()
})

const hex = bytesToUpperHex
const blockIdJson = (height: number): string => {
  const id = h.backend.stored(height).meta.blockId
  return `{"hash":"${hex(id.hash)}","parts":{"total":${id.partSetHeader.total},"hash":"${hex(id.partSetHeader.hash)}"}}`
}
const headerJson = (height: number): string => {
  const hd = h.backend.stored(height).block.header
  const last = height === 1 ? '{"hash":"","parts":{"total":0,"hash":""}}' : blockIdJson(height - 1)
  return (
    `{"version":{"block":"11"},"chain_id":"test-chain","height":"${height}","time":"2023-11-14T22:13:2${height}.123456789Z",` +
    `"last_block_id":${last},"last_commit_hash":"${hex(hd.lastCommitHash)}","data_hash":"${hex(hd.dataHash)}",` +
    `"validators_hash":"${hex(hd.validatorsHash)}","next_validators_hash":"${hex(hd.nextValidatorsHash)}","consensus_hash":"${hex(hd.consensusHash)}",` +
    `"app_hash":"${hex(hd.appHash)}","last_results_hash":"E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",` +
    `"evidence_hash":"E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855","proposer_address":"${hex(hd.proposerAddress)}"}`
  )
}
const commitJson = (height: number, which: 'seen' | 'canonical'): string => {
  const s = h.backend.stored(height)
  const c = which === 'seen' ? s.seen : h.backend.stored(height + 1).block.lastCommit
  const sigs = c.signatures.map((sig) =>
    sig.blockIdFlag === 1
      ? '{"block_id_flag":1,"validator_address":"","timestamp":"0001-01-01T00:00:00Z","signature":null}'
      : `{"block_id_flag":2,"validator_address":"${hex(sig.validatorAddress)}","timestamp":"${sig.timestamp.nanos ? `2023-11-14T22:15:0${sig.timestamp.seconds % 10}.00000000${sig.timestamp.nanos}Z` : `2023-11-14T22:15:0${sig.timestamp.seconds % 10}Z`}","signature":"${bytesToBase64(sig.signature)}"}`,
  )
  return `{"height":"${height}","round":0,"block_id":${blockIdJson(height)},"signatures":[${sigs.join(',')}]}`
}

describe('golden responses (URI GET, id -1)', () => {
  it('status', async () => {
    const r = await get(h.url, '/status')
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('application/json')
    const v0 = h.backend.set.validators[0]!
    expect(r.text).toBe(
      '{"jsonrpc":"2.0","id":-1,"result":{"node_info":{"protocol_version":{"p2p":"8","block":"11","app":"0"},' +
        '"id":"5576458aef205977e18fd50b274e9b5d9014525a","listen_addr":"tcp://0.0.0.0:26656","network":"test-chain","version":"0.38.25",' +
        '"channels":"40202122233038606100","moniker":"node0","other":{"tx_index":"on","rpc_address":"tcp://127.0.0.1:26657"}},' +
        `"sync_info":{"latest_block_hash":"${hex(h.backend.stored(3).meta.blockId.hash)}","latest_app_hash":"${hex(h.backend.stored(3).block.header.appHash)}",` +
        '"latest_block_height":"3","latest_block_time":"2023-11-14T22:13:23.123456789Z",' +
        `"earliest_block_hash":"${hex(h.backend.stored(1).meta.blockId.hash)}","earliest_app_hash":"${hex(h.backend.stored(1).block.header.appHash)}",` +
        '"earliest_block_height":"1","earliest_block_time":"2023-11-14T22:13:21.123456789Z","catching_up":false},' +
        `"validator_info":{"address":"${hex(v0.address)}","pub_key":{"type":"tendermint/PubKeyEd25519","value":"${bytesToBase64(v0.pubKey)}"},"voting_power":"10"}}}`,
    )
  })

  it('block with txs and a last commit carrying an ABSENT signature', async () => {
    const r = await get(h.url, '/block?height=2')
    const txs = TXS[2]!.map((t) => `"${bytesToBase64(t)}"`).join(',')
    expect(r.text).toBe(
      `{"jsonrpc":"2.0","id":-1,"result":{"block_id":${blockIdJson(2)},"block":{"header":${headerJson(2)},"data":{"txs":[${txs}]},` +
        `"evidence":{"evidence":[]},"last_commit":${commitJson(1, 'canonical')}}}}`,
    )
    expect(r.text).toContain('{"block_id_flag":1,"validator_address":"","timestamp":"0001-01-01T00:00:00Z","signature":null}')
    expect(r.headers.get('cache-control')).toBe('public, max-age=86400')
  })

  it('block 1 carries the empty last commit; latest block is not cacheable', async () => {
    const r = await get(h.url, '/block?height=1')
    expect(r.text).toContain('"last_commit":{"height":"0","round":0,"block_id":{"hash":"","parts":{"total":0,"hash":""}},"signatures":[]}')
    const latest = await get(h.url, '/block')
    expect((latest.json() as { result: { block: { header: { height: string } } } }).result.block.header.height).toBe('3')
    expect(latest.headers.get('cache-control')).toBeNull()
  })

  it('commit: canonical for earlier heights, the seen commit (canonical:false) at the latest', async () => {
    expect((await get(h.url, '/commit?height=1')).text).toBe(
      `{"jsonrpc":"2.0","id":-1,"result":{"signed_header":{"header":${headerJson(1)},"commit":${commitJson(1, 'canonical')}},"canonical":true}}`,
    )
    expect((await get(h.url, '/commit')).text).toBe(
      `{"jsonrpc":"2.0","id":-1,"result":{"signed_header":{"header":${headerJson(3)},"commit":${commitJson(3, 'seen')}},"canonical":false}}`,
    )
  })

  it('validators: the next height by default, canonical order, pagination', async () => {
    const [a, b] = h.backend.set.validators
    const val = (v: typeof a) =>
      `{"address":"${hex(v!.address)}","pub_key":{"type":"tendermint/PubKeyEd25519","value":"${bytesToBase64(v!.pubKey)}"},"voting_power":"10","proposer_priority":"${v!.proposerPriority}"}`
    expect((await get(h.url, '/validators')).text).toBe(
      `{"jsonrpc":"2.0","id":-1,"result":{"block_height":"4","validators":[${val(a)},${val(b)}],"count":"2","total":"2"}}`,
    )
    expect((await get(h.url, '/validators?height=2&page=2&per_page=1')).text).toBe(
      `{"jsonrpc":"2.0","id":-1,"result":{"block_height":"2","validators":[${val(b)}],"count":"1","total":"2"}}`,
    )
    const bad = await get(h.url, '/validators?page=3&per_page=1')
    expect(bad.status).toBe(500)
    expect(bad.json()).toEqual({
      jsonrpc: '2.0',
      id: -1,
      error: { code: -32603, message: 'Internal error', data: 'page should be within [1, 2] range, given 3' },
    })
  })

  it('block_results: jsonpb tx results, cmtjson events, Sum-form validator updates, app_hash base64', async () => {
    const s = h.backend.stored(2)
    const txr = TXS[2]!.map((tx, i) => {
      const data = i === 0 ? 'null' : `"${bytesToBase64(utf8ToBytes(`ret-${i}`))}"`
      return (
        `{"code":0,"data":${data},"log":"","info":"","gas_wanted":"21000","gas_used":"21000","events":[{"type":"ethereum_tx","attributes":[` +
        `{"key":"ethereumTxHash","value":"0x${hex(hashTx(tx)).toLowerCase()}","index":true},{"key":"txIndex","value":"${i}","index":true}]}],"codespace":""}`
      )
    })
    expect((await get(h.url, '/block_results?height=2')).text).toBe(
      `{"jsonrpc":"2.0","id":-1,"result":{"height":"2","txs_results":[${txr.join(',')}],` +
        '"finalize_block_events":[{"type":"block_bloom","attributes":[{"key":"bloom","value":"0x00","index":true}]},{"type":"empty_event"}],' +
        `"validator_updates":[{"pub_key":{"Sum":{"type":"tendermint.crypto.PublicKey_Ed25519","value":{"ed25519":"${bytesToBase64(h.backend.set.validators[0]!.pubKey)}"}}},"power":"20"}],` +
        `"consensus_param_updates":null,"app_hash":"${bytesToBase64(s.results.appHash)}"}}`,
    )
    const r1 = (await get(h.url, '/block_results?height=1')).json() as { result: Record<string, unknown> }
    expect(r1.result.finalize_block_events).toBeNull()
    expect(r1.result.validator_updates).toBeNull()
    const r3 = (await get(h.url, '/block_results?height=3')).json() as { result: Record<string, unknown> }
    expect(r3.result.consensus_param_updates).toEqual({ block: { max_bytes: '1000000', max_gas: '40000000' } })
  })

  it('tx by hash with a Merkle proof against the data hash', async () => {
    const tx = TXS[2]![1]!
    const hash = hashTx(tx)
    const r = await get(h.url, `/tx?hash=0x${hex(hash)}&prove=true`)
    const { root, proofs } = merkleProofs(TXS[2]!.map(hashTx))
    expect(root).toEqual(h.backend.stored(2).block.header.dataHash)
    const p = proofs[1]!
    expect(r.text).toBe(
      `{"jsonrpc":"2.0","id":-1,"result":{"hash":"${hex(hash)}","height":"2","index":1,"tx_result":{"code":0,"data":"${bytesToBase64(utf8ToBytes('ret-1'))}",` +
        `"log":"","info":"","gas_wanted":"21000","gas_used":"21000","events":[{"type":"ethereum_tx","attributes":[{"key":"ethereumTxHash","value":"0x${hex(hash).toLowerCase()}","index":true},` +
        `{"key":"txIndex","value":"1","index":true}]}],"codespace":""},"tx":"${bytesToBase64(tx)}",` +
        `"proof":{"root_hash":"${hex(root)}","data":"${bytesToBase64(tx)}","proof":{"total":"3","index":"1","leaf_hash":"${bytesToBase64(p.leafHash)}",` +
        `"aunts":[${p.aunts.map((a) => `"${bytesToBase64(a)}"`).join(',')}]}}}}`,
    )
    // The proof verifies: leaf = SHA-256(tx), root = header data hash.
    expect(verifyMerkleProof(root, hash, p)).toBe(true)
    // Without prove there is no proof; a one-tx block's proof has empty aunts.
    expect((await get(h.url, `/tx?hash=0x${hex(hash)}`)).text).not.toContain('proof')
    const single = (await get(h.url, `/tx?hash=0x${hex(hashTx(TXS[3]![0]!))}&prove=true`)).json() as {
      result: { proof: { proof: { aunts: unknown[] } } }
    }
    expect(single.result.proof.proof.aunts).toEqual([])
  })

  it('genesis keeps app_state byte for byte (big numbers) with Go HTML escaping; genesis_chunked', async () => {
    const r = await get(h.url, '/genesis')
    expect(r.text).toContain('"app_state":{"evm":{"big":123456789012345678901234567890,"note":"\\u003ca\\u0026b\\u003e"}}')
    expect(r.text).toContain('"genesis_time":"2023-11-14T22:13:20.5Z","chain_id":"test-chain","initial_height":"1"')
    const c = (await get(h.url, '/genesis_chunked')).json() as { result: { chunk: string; total: string; data: string } }
    expect(c.result.chunk).toBe('0')
    expect(c.result.total).toBe('1')
    expect(JSON.parse(Buffer.from(c.result.data, 'base64').toString()).chain_id).toBe('test-chain')
    const bad = await get(h.url, '/genesis_chunked?chunk=1')
    expect(bad.json()).toMatchObject({ error: { code: -32603, data: 'there are 0 chunks, 1 is invalid' } })
  })

  it('the other info routes', async () => {
    expect((await get(h.url, '/health')).text).toBe('{"jsonrpc":"2.0","id":-1,"result":{}}')
    expect((await get(h.url, '/net_info')).text).toBe(
      '{"jsonrpc":"2.0","id":-1,"result":{"listening":true,"listeners":["Listener(@127.0.0.1:26656)"],"n_peers":"0","peers":[]}}',
    )
    expect((await get(h.url, '/num_unconfirmed_txs')).text).toBe(
      '{"jsonrpc":"2.0","id":-1,"result":{"n_txs":"2","total":"2","total_bytes":"19","txs":null}}',
    )
    expect((await get(h.url, '/unconfirmed_txs?limit=1')).text).toBe(
      '{"jsonrpc":"2.0","id":-1,"result":{"n_txs":"1","total":"2","total_bytes":"19","txs":["cGVuZGluZy0x"]}}',
    )
    expect((await get(h.url, '/abci_info')).text).toBe(
      '{"jsonrpc":"2.0","id":-1,"result":{"response":{"data":"nodectl","version":"0.1.0","last_block_height":"3","last_block_app_hash":"q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s="}}}',
    )
    expect((await get(h.url, '/abci_query?path="/store/key"&data=0x6162&height=2&prove=false')).text).toBe(
      '{"jsonrpc":"2.0","id":-1,"result":{"response":{"code":0,"log":"","info":"/store/key","index":"0","key":"YWI=","value":"dmFsdWU=","proofOps":null,"height":"2","codespace":""}}}',
    )
    expect((await get(h.url, '/consensus_params?height=1')).text).toBe(
      '{"jsonrpc":"2.0","id":-1,"result":{"block_height":"1","consensus_params":{"block":{"max_bytes":"22020096","max_gas":"30000000"},' +
        '"evidence":{"max_age_num_blocks":"100000","max_age_duration":"172800000000000","max_bytes":"1048576"},"validator":{"pub_key_types":["ed25519"]},' +
        '"version":{"app":"0"},"abci":{"vote_extensions_enable_height":"0"}}}}',
    )
    const cs = (await get(h.url, '/consensus_state')).json() as { result: { round_state: Record<string, unknown> } }
    expect(cs.result.round_state['height/round/step']).toBe('4/0/4')
    expect(cs.result.round_state.proposal_block_hash).toBe(hex(h.backend.stored(3).meta.blockId.hash))
    expect(cs.result.round_state.proposer).toEqual({ address: hex(h.backend.set.getProposer().address), index: 0 })
    const dump = (await get(h.url, '/dump_consensus_state')).json() as {
      result: { round_state: Record<string, unknown>; peers: unknown[] }
    }
    expect(dump.result.round_state.height).toBe('4')
    expect(dump.result.round_state.step).toBe(4)
    expect(dump.result.peers).toEqual([])
    expect((await get(h.url, '/header?height=1')).text).toBe(`{"jsonrpc":"2.0","id":-1,"result":{"header":${headerJson(1)}}}`)
    expect((await get(h.url, `/header_by_hash?hash=0x${hex(h.backend.stored(2).meta.blockId.hash)}`)).text).toBe(
      `{"jsonrpc":"2.0","id":-1,"result":{"header":${headerJson(2)}}}`,
    )
    expect((await get(h.url, '/header_by_hash?hash=0x00')).text).toBe('{"jsonrpc":"2.0","id":-1,"result":{"header":null}}')
    expect((await get(h.url, '/block_by_hash?hash=0x00')).text).toBe(
      '{"jsonrpc":"2.0","id":-1,"result":{"block_id":{"hash":"","parts":{"total":0,"hash":""}},"block":null}}',
    )
  })

  it('blockchain: descending metas', async () => {
    const r = (await get(h.url, '/blockchain?minHeight=2&maxHeight=10')).json() as {
      result: { last_height: string; block_metas: { header: { height: string }; num_txs: string; block_size: string }[] }
    }
    expect(r.result.last_height).toBe('3')
    expect(r.result.block_metas.map((m) => [m.header.height, m.num_txs])).toEqual([
      ['3', '1'],
      ['2', '3'],
    ])
    expect(r.result.block_metas[0]!.block_size).toBe(String(h.backend.stored(3).meta.blockSize))
  })

  it('tx_search and block_search: order, pagination, proofs', async () => {
    const asc = (await get(h.url, '/tx_search?query="tx.height=2"&page=1&per_page=2&order_by="asc"')).json() as {
      result: { txs: { index: number; proof?: unknown }[]; total_count: string }
    }
    expect(asc.result.total_count).toBe('3')
    expect(asc.result.txs.map((t) => t.index)).toEqual([0, 1])
    expect(asc.result.txs[0]!.proof).toBeUndefined()
    const desc = (await get(h.url, '/tx_search?query="tx.height=2"&order_by="desc"&prove=true')).json() as {
      result: { txs: { index: number; proof: unknown }[] }
    }
    expect(desc.result.txs.map((t) => t.index)).toEqual([2, 1, 0])
    expect(desc.result.txs[0]!.proof).toBeDefined()
    const blocks = (await get(h.url, '/block_search?query="block_bloom.bloom EXISTS"')).json() as {
      result: { blocks: { block: { header: { height: string } } }[]; total_count: string }
    }
    expect(blocks.result.blocks.map((b) => b.block.header.height)).toEqual(['3', '2'])
    expect(blocks.result.total_count).toBe('2')
  })
})

describe('errors and HTTP statuses', () => {
  const err = (code: number, message: string, data?: string, id: number | string | null = -1) => ({
    jsonrpc: '2.0',
    ...(id === null ? {} : { id }),
    error: { code, message, ...(data === undefined ? {} : { data }) },
  })

  it('height checks', async () => {
    const cases: [string, string][] = [
      ['/block?height=0', 'height must be greater than 0, but got 0'],
      ['/block?height=-5', 'height must be greater than 0, but got -5'],
      ['/block?height=10', 'height 10 must be less than or equal to the current blockchain height 3'],
      ['/validators?height=6', 'height 6 must be less than or equal to the current blockchain height 4'],
      ['/blockchain?minHeight=-1', 'heights must be non-negative'],
      ['/blockchain?minHeight=3&maxHeight=2', "min height 3 can't be greater than max height 2"],
    ]
    for (const [path, data] of cases) {
      const r = await get(h.url, path)
      expect(r.status, path).toBe(500)
      expect(r.json(), path).toEqual(err(-32603, 'Internal error', data))
    }
  })

  it('below the store base and missing results', async () => {
    class Pruned extends FakeBackend {
      override baseHeight(): number {
        return 2
      }
      override loadFinalizeBlockResults(): undefined {
        return undefined
      }
    }
    const p = await startHarness({ backend: new Pruned() })
    try {
      expect((await get(p.url, '/block?height=1')).json()).toEqual(
        err(-32603, 'Internal error', 'height 1 is not available, lowest height is 2'),
      )
      expect((await get(p.url, '/block_results?height=3')).json()).toEqual(
        err(-32603, 'Internal error', 'could not find results for height #3'),
      )
    } finally {
      await p.server.close()
    }
  })

  it('URI param errors are -32602 with HTTP 500', async () => {
    const cases: [string, string][] = [
      ['/block?height=abc', "error converting http params to arguments: invalid character 'a' looking for beginning of value"],
      ['/block?height=0x01', "error converting http params to arguments: got a hex string arg, but expected 'int64'"],
      ['/tx?hash=abc', "error converting http params to arguments: invalid character 'a' looking for beginning of value"],
      ['/tx_search?query=tx.height=1', "error converting http params to arguments: invalid character 'x' in literal true (expecting 'r')"],
    ]
    for (const [path, data] of cases) {
      const r = await get(h.url, path)
      expect(r.status, path).toBe(500)
      expect(r.json(), path).toEqual(err(-32602, 'Invalid params', data))
    }
  })

  it('tx not found, order_by, query length, indexing disabled', async () => {
    expect((await get(h.url, '/tx?hash=0xABCD')).json()).toEqual(err(-32603, 'Internal error', 'tx (ABCD) not found'))
    expect((await get(h.url, '/tx_search?query="tx.height=1"&order_by="up"')).json()).toEqual(
      err(-32603, 'Internal error', 'expected order_by to be either `asc` or `desc` or empty'),
    )
    expect((await get(h.url, `/tx_search?query="${'a'.repeat(513)}"`)).json()).toEqual(
      err(-32603, 'Internal error', 'maximum query length exceeded'),
    )
    expect((await get(h.url, '/tx_search?query="nope"')).json()).toEqual(
      err(-32603, 'Internal error', 'failed to parse query: unsupported query "nope"'),
    )
    const off = await startHarness({ backend: new FakeBackend({ txIndex: false }) })
    try {
      expect((await get(off.url, '/tx?hash=0xAB')).json()).toEqual(err(-32603, 'Internal error', 'transaction indexing is disabled'))
      expect((await get(off.url, '/block_search?query="a"')).json()).toEqual(err(-32603, 'Internal error', 'block indexing is disabled'))
      expect(
        ((await get(off.url, '/status')).json() as { result: { node_info: { other: { tx_index: string } } } }).result.node_info.other
          .tx_index,
      ).toBe('off')
    } finally {
      await off.server.close()
    }
  })

  it('WebSocket-only routes: 404 over URI, -32601 over POST', async () => {
    const r = await get(h.url, '/subscribe?query="tm.event=\'NewBlock\'"')
    expect(r.status).toBe(404)
    expect(r.json()).toEqual(err(-32601, 'Method not found'))
    const p = await post(h.url, { jsonrpc: '2.0', id: 3, method: 'unsubscribe_all', params: {} })
    expect(p.status).toBe(200)
    expect(p.json()).toEqual(err(-32601, 'Method not found', undefined, 3))
  })

  it('unknown paths: plain 404; /websocket without upgrade: 400', async () => {
    const r = await get(h.url, '/nope')
    expect(r.status).toBe(404)
    expect(r.text).toBe('404 page not found\n')
    expect((await post(h.url, { jsonrpc: '2.0', id: 1, method: 'status' }, '/nope')).status).toBe(404)
    expect((await get(h.url, '/status/')).status).toBe(404)
    expect((await get(h.url, '/websocket')).status).toBe(400)
  })

  it('JSON-RPC parse errors: HTTP 500, no id', async () => {
    const r = await post(h.url, 'xyz')
    expect(r.status).toBe(500)
    expect(r.text).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error. Invalid JSON","data":"error unmarshaling request: invalid ' +
        "character 'x' looking for beginning of value\"}}",
    )
    expect((await post(h.url, { jsonrpc: '2.0', id: true, method: 'status' })).json()).toEqual(
      err(-32700, 'Parse error. Invalid JSON', 'error unmarshaling request: json-rpc ID (true) is of unknown type (bool)', null),
    )
    expect((await post(h.url, [{ jsonrpc: '2.0', id: 1, method: 'status' }, 5])).json()).toEqual(
      err(
        -32700,
        'Parse error. Invalid JSON',
        'error unmarshaling request: json: cannot unmarshal array into Go value of type types.RPCRequest',
        null,
      ),
    )
  })

  it('JSON-RPC method and param errors: HTTP 200 with the id', async () => {
    expect((await post(h.url, { jsonrpc: '2.0', id: 'x', method: 'nope' })).json()).toEqual(err(-32601, 'Method not found', undefined, 'x'))
    const bad = await post(h.url, { jsonrpc: '2.0', id: 2, method: 'block', params: { height: true } })
    expect(bad.status).toBe(200)
    expect(bad.json()).toEqual(
      err(
        -32602,
        'Invalid params',
        'error converting json params to arguments: invalid 64-bit integer encoding "true", expected string',
        2,
      ),
    )
    expect((await post(h.url, { jsonrpc: '2.0', id: 2, method: 'tx', params: ['AAAA'] })).json()).toEqual(
      err(
        -32602,
        'Invalid params',
        'error converting json params to arguments: expected 2 parameters ([hash prove]), got 1 ([[34 65 65 65 65 34]])',
        2,
      ),
    )
    expect((await post(h.url, { jsonrpc: '2.0', id: 2, method: 'block', params: { height: '9' } })).json()).toEqual(
      err(-32603, 'Internal error', 'height 9 must be less than or equal to the current blockchain height 3', 2),
    )
  })

  it('body over max_body_bytes: 400 -32600', async () => {
    const r = await post(h.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status', params: { pad: 'x'.repeat(1_000_001) } }))
    expect(r.status).toBe(400)
    expect(r.json()).toEqual(err(-32600, 'Invalid Request', 'error reading request body: http: request body too large', null))
  })

  it('batches: array replies, notifications skipped, one reply is an object, more than 10 refused', async () => {
    const batch = await post(h.url, [
      { jsonrpc: '2.0', id: 1, method: 'health' },
      { jsonrpc: '2.0', method: 'status' },
      { jsonrpc: '2.0', id: 'two', method: 'block', params: ['2'] },
    ])
    const arr = batch.json() as { id: unknown; result: unknown }[]
    expect(arr.map((r) => r.id)).toEqual([1, 'two'])
    expect(arr[0]!.result).toEqual({})
    const one = await post(h.url, [
      { jsonrpc: '2.0', id: 5, method: 'health' },
      { jsonrpc: '2.0', method: 'health' },
    ])
    expect(one.text).toBe('{"jsonrpc":"2.0","id":5,"result":{}}')
    const none = await post(h.url, [{ jsonrpc: '2.0', method: 'health' }])
    expect([none.status, none.text]).toEqual([200, ''])
    const single = await post(h.url, { jsonrpc: '2.0', method: 'health' })
    expect([single.status, single.text]).toEqual([200, ''])
    const big = await post(
      h.url,
      Array.from({ length: 11 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'health' })),
    )
    expect(big.status).toBe(200)
    expect(big.json()).toEqual(err(-32600, 'Invalid Request', 'batch request exceeds maximum (10) allowed number of requests', null))
    expect(
      (
        await post(
          h.url,
          Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'health' })),
        )
      ).status,
    ).toBe(200)
  })

  it('ids: numbers truncated, strings echoed; params absent, null or {} mean defaults', async () => {
    expect((await post(h.url, { jsonrpc: '2.0', id: 7.9, method: 'health' })).text).toBe('{"jsonrpc":"2.0","id":7,"result":{}}')
    expect((await post(h.url, { jsonrpc: '2.0', id: 'abc', method: 'health' })).text).toBe('{"jsonrpc":"2.0","id":"abc","result":{}}')
    for (const params of [undefined, null, {}]) {
      const r = (await post(h.url, { jsonrpc: '2.0', id: 1, method: 'block', params })).json() as {
        result: { block: { header: { height: string } } }
      }
      expect(r.result.block.header.height).toBe('3')
    }
  })

  it('empty POST and GET / list the routes as HTML', async () => {
    for (const r of [await post(h.url, ''), await get(h.url, '/')]) {
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('text/html')
      expect(r.text).toContain('Available endpoints:')
      expect(r.text).toContain(`/block?height=_`)
      expect(r.text).toContain('/tx_search?query=_&prove=_&page=_&per_page=_&order_by=_')
    }
  })

  it('POST to a route path is a URI call (the JSON body is ignored)', async () => {
    const r = await post(h.url, { jsonrpc: '2.0', id: 9, method: 'block', params: { height: '1' } }, '/health')
    expect(r.text).toBe('{"jsonrpc":"2.0","id":-1,"result":{}}')
  })

  it('form-encoded POST to a route path', async () => {
    const r = await fetch(h.url + '/block', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'height=1',
    })
    expect(((await r.json()) as { result: { block: { header: { height: string } } } }).result.block.header.height).toBe('1')
  })

  it('X-Server-Time on every response; Cache-Control only on cacheable successes', async () => {
    for (const r of [await get(h.url, '/status'), await get(h.url, '/nope'), await post(h.url, 'x')]) {
      expect(Math.abs(Number(r.headers.get('x-server-time')) - Date.now() / 1000)).toBeLessThan(5)
    }
    expect((await get(h.url, '/status')).headers.get('cache-control')).toBeNull()
    expect((await get(h.url, '/genesis')).headers.get('cache-control')).toBe('public, max-age=86400')
    expect((await get(h.url, '/block?height=9')).headers.get('cache-control')).toBeNull()
    expect((await post(h.url, { jsonrpc: '2.0', id: 1, method: 'block', params: { height: '1' } })).headers.get('cache-control')).toBe(
      'public, max-age=86400',
    )
    expect(
      (
        await post(h.url, [
          { jsonrpc: '2.0', id: 1, method: 'block', params: { height: '1' } },
          { jsonrpc: '2.0', id: 2, method: 'status' },
        ])
      ).headers.get('cache-control'),
    ).toBeNull()
  })

  it('headers over max_header_bytes: 431', async () => {
    const s = await startHarness({ options: { maxHeaderBytes: 1024 } })
    try {
      expect((await get(s.url, '/health', { headers: { 'x-big': 'y'.repeat(4096) } })).status).toBe(431)
    } finally {
      await s.server.close()
    }
  })
})

describe('broadcast and evidence', () => {
  const b64 = (s: string) => bytesToBase64(utf8ToBytes(s))
  const call = async (method: string, params: unknown) =>
    (await post(h.url, { jsonrpc: '2.0', id: 1, method, params })).json() as { result?: Record<string, unknown>; error?: { data: string } }

  it('broadcast_tx_sync / async: CheckTx result, data as HexBytes, hash = SHA-256 upper hex', async () => {
    const sync = await call('broadcast_tx_sync', { tx: b64('sync-1') })
    expect(sync.result).toEqual({ code: 0, data: 'ABCD', log: '', codespace: '', hash: hex(sha256(utf8ToBytes('sync-1'))) })
    const rejected = await call('broadcast_tx_sync', { tx: b64('bad-1') })
    expect(rejected.result).toMatchObject({ code: 5, log: 'insufficient funds', codespace: 'evm' })
    const async_ = await call('broadcast_tx_async', { tx: b64('async-1') })
    expect(async_.result).toEqual({ code: 0, data: '', log: '', codespace: '', hash: hex(sha256(utf8ToBytes('async-1'))) })
    expect((await call('broadcast_tx_sync', { tx: b64('sync-1') })).error).toMatchObject({ data: 'tx already exists in cache' })
    const uri = (await get(h.url, '/broadcast_tx_sync?tx="uri-tx"')).json() as { result: { hash: string } }
    expect(uri.result.hash).toBe(hex(sha256(utf8ToBytes('uri-tx'))))
  })

  it('broadcast_tx_commit: waits for inclusion; CheckTx failure → height "0"; timeout; mempool error', async () => {
    const ok = await call('broadcast_tx_commit', { tx: b64('commit-1') })
    expect(ok.result).toMatchObject({
      hash: hex(sha256(utf8ToBytes('commit-1'))),
      height: '4',
      check_tx: { code: 0, data: 'q80=', gas_wanted: '21000' },
    })
    expect((ok.result!.tx_result as { gas_used: string }).gas_used).toBe('21000')
    const failed = await call('broadcast_tx_commit', { tx: b64('bad-2') })
    expect(failed.result).toMatchObject({ height: '0', check_tx: { code: 5 } })
    expect(failed.result!.tx_result).toEqual({
      code: 0,
      data: null,
      log: '',
      info: '',
      gas_wanted: '0',
      gas_used: '0',
      events: [],
      codespace: '',
    })
    expect((await call('broadcast_tx_commit', { tx: b64('commit-1') })).error).toMatchObject({
      data: 'error on broadcastTxCommit: tx already exists in cache',
    })
    const slow = await startHarness({ options: { timeoutBroadcastTxCommit: 100 } })
    try {
      const r = (
        await post(slow.url, { jsonrpc: '2.0', id: 1, method: 'broadcast_tx_commit', params: { tx: b64('never-included') } })
      ).json()
      expect(r).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: 'Internal error', data: 'timed out waiting for tx to be included in a block' },
      })
    } finally {
      await slow.server.close()
    }
  })

  it('check_tx: the flat ResponseCheckTx', async () => {
    expect((await call('check_tx', { tx: b64('x') })).result).toEqual({
      code: 0,
      data: null,
      log: '',
      info: '',
      gas_wanted: '5',
      gas_used: '3',
      events: [{ type: 'check', attributes: [{ key: 'k', value: 'v', index: false }] }],
      codespace: '',
    })
  })

  it('broadcast_evidence: typed evidence in, hash (base64 SHA-256 of its protobuf) out', async () => {
    const s2 = h.backend.stored(2)
    const vote = (hash: Uint8Array): Vote => ({
      type: SignedMsgType.Prevote,
      height: 2,
      round: 0,
      blockId: { hash, partSetHeader: { total: 1, hash: new Uint8Array(32).fill(9) } },
      timestamp: { seconds: 1_700_000_002, nanos: 0 },
      validatorAddress: h.backend.set.validators[0]!.address,
      validatorIndex: 0,
      signature: new Uint8Array(64).fill(1),
    })
    const ev = {
      voteA: vote(new Uint8Array(32).fill(1)),
      voteB: vote(new Uint8Array(32).fill(2)),
      totalVotingPower: 20n,
      validatorPower: 10n,
      timestamp: s2.block.header.time,
    }
    const r = await call('broadcast_evidence', { evidence: encodeEvidenceJson(ev) })
    expect(r.result).toEqual({ hash: bytesToBase64(sha256(encodeEvidence(ev))) })
    expect(h.backend.evidence).toHaveLength(1)
    expect(h.backend.evidence[0]).toEqual(ev)
    expect(
      (await call('broadcast_evidence', { evidence: encodeEvidenceJson({ ...ev, voteA: ev.voteB, voteB: ev.voteA }) })).error,
    ).toMatchObject({
      data: 'evidence.ValidateBasic failed: duplicate votes in invalid order',
    })
    expect((await call('broadcast_evidence', {})).error).toMatchObject({ data: 'no evidence was provided' })
    const future = { ...ev, voteA: { ...ev.voteA, height: 9 }, voteB: { ...ev.voteB, height: 9 } }
    expect((await call('broadcast_evidence', { evidence: encodeEvidenceJson(future) })).error).toMatchObject({
      data: 'failed to add evidence: evidence from the future',
    })
  })
})

describe('CORS', () => {
  it('off by default; preflight and actual requests as rs/cors when origins are set', async () => {
    const plain = await get(h.url, '/health', { headers: { Origin: 'http://a.example' } })
    expect(plain.headers.get('access-control-allow-origin')).toBeNull()
    const s = await startHarness({ options: { corsAllowedOrigins: ['http://a.example', 'https://*.b.example'] } })
    try {
      const pre = await fetch(s.url + '/', {
        method: 'OPTIONS',
        headers: { Origin: 'http://a.example', 'Access-Control-Request-Method': 'post', 'Access-Control-Request-Headers': 'content-type' },
      })
      expect(pre.status).toBe(204)
      expect(pre.headers.get('access-control-allow-origin')).toBe('http://a.example')
      expect(pre.headers.get('access-control-allow-methods')).toBe('POST')
      expect(pre.headers.get('access-control-allow-headers')).toBe('content-type')
      const badMethod = await fetch(s.url + '/', {
        method: 'OPTIONS',
        headers: { Origin: 'http://a.example', 'Access-Control-Request-Method': 'DELETE' },
      })
      expect(badMethod.status).toBe(204)
      expect(badMethod.headers.get('access-control-allow-origin')).toBeNull()
      const actual = await get(s.url, '/health', { headers: { Origin: 'https://x.b.example' } })
      expect(actual.headers.get('access-control-allow-origin')).toBe('https://x.b.example')
      expect(actual.headers.get('vary')).toBe('Origin')
      const other = await get(s.url, '/health', { headers: { Origin: 'http://evil.example' } })
      expect(other.headers.get('access-control-allow-origin')).toBeNull()
    } finally {
      await s.server.close()
    }
    const any = await startHarness({ options: { corsAllowedOrigins: ['*'] } })
    try {
      expect((await get(any.url, '/health', { headers: { Origin: 'http://z.example' } })).headers.get('access-control-allow-origin')).toBe(
        '*',
      )
    } finally {
      await any.server.close()
    }
  })
})

describe('server lifecycle', () => {
  it('port 0, bound address, idempotent close', async () => {
    const s = await startHarness()
    expect(s.server.address.port).toBeGreaterThan(0)
    expect(s.url).toBe(`http://127.0.0.1:${s.server.address.port}`)
    await s.server.close()
    await s.server.close()
    await expect(fetch(s.url + '/health')).rejects.toThrow()
  })
})
