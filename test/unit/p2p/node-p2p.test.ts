import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { initDevHome } from '../../../src/config/init-home.js'
import { testNodeSettings } from '../../../src/node/test-settings.js'
import { cometRpc, committed, rpc, startTestNode, type TestNode } from '../../helpers/dev-node.js'

describe('a node with several validators', () => {
  const homes: string[] = []
  const nodes: TestNode[] = []
  afterEach(async () => {
    // destroy: a node started without a home of the test's removes the temporary one it made
    for (const n of nodes.splice(0)) await n.destroy()
    for (const h of homes.splice(0)) await rm(h, { recursive: true, force: true })
  })

  it('starts the p2p host, commits with its peer and reports it in net_peerCount and net_info', async () => {
    for (let i = 0; i < 2; i++) {
      const home = await mkdtemp(join(tmpdir(), 'nodectl-p2p-node-'))
      homes.push(home)
      await initDevHome(home, { settings: testNodeSettings(`node${i}`) })
    }
    // One genesis with both homes' validator keys, byte for byte the same in both homes.
    const genesisPath = (home: string) => join(home, 'config', 'genesis.json')
    const genesis = JSON.parse(await readFile(genesisPath(homes[0]!), 'utf8')) as { validators: unknown[] }
    const second = JSON.parse(await readFile(genesisPath(homes[1]!), 'utf8')) as { validators: unknown[] }
    genesis.validators.push(...second.validators)
    for (const home of homes) await writeFile(genesisPath(home), JSON.stringify(genesis, null, 2))

    nodes.push(await startTestNode({ home: homes[0]! }))
    const first = nodes[0]!.node.components.p2p!.host
    const peer = `${first.nodeId}@127.0.0.1:${first.listenPort}`
    nodes.push(await startTestNode({ home: homes[1]!, flags: { 'p2p.persistent_peers': peer } }))

    await Promise.all(nodes.map((n) => committed(n, 2)))
    const hash = async (n: TestNode) => (await n.node.components.blockStore.loadBlockMeta(2))!.blockId.hash
    expect(await hash(nodes[1]!)).toEqual(await hash(nodes[0]!))
    expect((await rpc<number>(nodes[0]!.url, 'net_peerCount')).result).toBe(1)
    const info = await cometRpc<{ listening: boolean; n_peers: string; peers: { node_info: { id: string }; is_outbound: boolean }[] }>(
      nodes[1]!,
      'net_info',
    )
    expect(info.listening).toBe(true)
    expect(info.n_peers).toBe('1')
    expect(info.peers[0]).toMatchObject({ node_info: { id: first.nodeId }, is_outbound: true })
  }, 30_000)

  it('keeps a single validator on the loopback transport, without a p2p host', async () => {
    nodes.push(await startTestNode())
    expect(nodes[0]!.node.components.p2p).toBeUndefined()
    expect((await rpc<number>(nodes[0]!.url, 'net_peerCount')).result).toBe(0)
  })
})
