import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'smol-toml'
import { afterAll, describe, expect, it } from 'vitest'
import ShowNodeId from '../../../src/commands/show-node-id.js'
import ShowValidator from '../../../src/commands/show-validator.js'
import TestnetInitFiles from '../../../src/commands/testnet/init-files.js'
import { loadNodeConfig } from '../../../src/config/load.js'
import type { TestnetResult } from '../../../src/config/testnet.js'
import { sha256 } from '../../../src/crypto/index.js'
import { devAccounts } from '../../../src/keystore/dev-accounts.js'
import { loadNodeKey, loadValidatorKey } from '../../../src/keystore/validator-key.js'
import { bytesToBase64, bytesToHex } from '../../../src/primitives/hex.js'
import { jsonOf, runCli, runCliOnTerminal } from '../../helpers/cli.js'
import { rpc, startTestNode, waitForBlock } from '../../helpers/dev-node.js'

/** Temporary directories made by this file, removed after it. */
const made: string[] = []
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'nodectl-cmd-testnet-'))
  made.push(dir)
  return dir
}
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })))
})

/** Every listener of a started node on a free port: the written ports may be taken on a shared machine. */
const FREE_PORTS = {
  'rpc.laddr': 'tcp://127.0.0.1:0',
  'p2p.laddr': 'tcp://127.0.0.1:0',
  'json-rpc.address': '127.0.0.1:0',
  'json-rpc.ws-address': '127.0.0.1:0',
}

describe('nodectl testnet init-files', () => {
  it('writes N+M homes sharing one genesis, with equal-power validators, distinct ports and the others as peers', async () => {
    const out = join(await tempDir(), 'net')
    const run = await runCli(TestnetInitFiles, [
      '--validators',
      '3',
      '--non-validators',
      '1',
      '-o',
      out,
      '--starting-port',
      '40000',
      '--json',
    ])
    expect(run.error).toBeUndefined()
    const result = jsonOf<TestnetResult>(run)
    expect(result.nodes.map((n) => n.moniker)).toEqual(['node0', 'node1', 'node2', 'node3'])
    expect((await readdir(out)).sort()).toEqual(['node0', 'node1', 'node2', 'node3'])
    expect(result.nodes[1]).toEqual({
      moniker: 'node1',
      home: join(out, 'node1'),
      nodeId: expect.stringMatching(/^[0-9a-f]{40}$/),
      validatorAddress: expect.stringMatching(/^[0-9A-F]{40}$/),
      jsonRpc: 'http://127.0.0.1:40010',
      webSocket: 'ws://127.0.0.1:40011',
      cometRpc: 'http://127.0.0.1:40012',
      p2p: 'tcp://127.0.0.1:40013',
      abci: 'tcp://127.0.0.1:40014',
    })
    expect(result.nodes[3]!.validatorAddress).toBe('')

    const genesisTexts = await Promise.all(result.nodes.map((n) => readFile(join(n.home, 'config/genesis.json'), 'utf8')))
    expect(new Set(genesisTexts).size).toBe(1)
    const genesis = JSON.parse(genesisTexts[0]!) as {
      chain_id: string
      validators: { address: string; pub_key: { value: string }; power: string; name: string }[]
      app_state: { evm: { accounts: { address: string; balance: string }[]; validator_admin: string } }
    }
    expect(genesis.chain_id).toBe(result.chainId)
    expect(genesis.validators.map((v) => [v.name, v.power])).toEqual([
      ['node0', '10'],
      ['node1', '10'],
      ['node2', '10'],
    ])
    const dev = devAccounts()
    expect(genesis.app_state.evm.accounts.map((a) => a.address)).toEqual(dev.map((a) => a.address))
    expect(genesis.app_state.evm.validator_admin).toBe(dev[0]!.address)

    for (const [i, node] of result.nodes.entries()) {
      const nodeKey = await loadNodeKey(join(node.home, 'config/node_key.json'))
      expect(node.nodeId).toBe(bytesToHex(sha256(nodeKey.publicKey).subarray(0, 20)).slice(2))
      if (i < 3) {
        const key = await loadValidatorKey(join(node.home, 'config/priv_validator_key.json'))
        expect(genesis.validators[i]!.pub_key.value).toBe(bytesToBase64(key.publicKey))
        expect(node.validatorAddress).toBe(genesis.validators[i]!.address)
      }
      const config = await loadNodeConfig({ home: node.home, env: {} })
      expect(config.chainId).toBe(result.chainId)
      expect(config.jsonRpc.enable).toBe(true)
      expect(config.jsonRpc.address).toEqual({ host: '127.0.0.1', port: 40000 + 10 * i })
      expect(config.rpc.laddr).toEqual({ host: '127.0.0.1', port: 40002 + 10 * i })
      expect(config.p2p.laddr).toEqual({ host: '127.0.0.1', port: 40003 + 10 * i })
      expect(config.abci.laddr).toEqual({ host: '127.0.0.1', port: 40004 + 10 * i })
      expect(config.instrumentation).toMatchObject({ prometheus: false, prometheusListenAddr: { host: '127.0.0.1', port: 40005 + 10 * i } })
      const others = result.nodes.filter((_, j) => j !== i).map((n) => `${n.nodeId}@${n.p2p.slice('tcp://'.length)}`)
      expect(config.p2p.persistentPeers).toEqual(others)
    }
  })

  it('--engine cometbft: each home names its own [abci] laddr as proxy_app, with abci = "socket" and the loopback p2p keys', async () => {
    const out = await tempDir()
    const run = await runCli(TestnetInitFiles, [
      '--validators',
      '2',
      '--non-validators',
      '1',
      '-o',
      out,
      '--starting-port',
      '41000',
      '--engine',
      'cometbft',
    ])
    expect(run.error).toBeUndefined()
    for (const [i, node] of run.result!.nodes.entries()) {
      const config = parse(await readFile(join(node.home, 'config/config.toml'), 'utf8')) as {
        proxy_app: string
        abci: string
        p2p: { allow_duplicate_ip: boolean; addr_book_strict: boolean }
      }
      const app = parse(await readFile(join(node.home, 'config/app.toml'), 'utf8')) as { abci: { laddr: string } }
      expect(node.abci).toBe(`tcp://127.0.0.1:${41004 + 10 * i}`)
      expect(config.proxy_app).toBe(node.abci)
      expect(app.abci.laddr).toBe(node.abci)
      expect(config.abci).toBe('socket')
      expect(config.p2p).toMatchObject({ allow_duplicate_ip: true, addr_book_strict: false })
      const warnings: string[] = []
      await loadNodeConfig({ home: node.home, env: {}, onWarning: (m) => warnings.push(m) })
      expect(warnings).toEqual([])
    }

    const ours = await runCli(TestnetInitFiles, ['--validators', '1', '-o', join(out, 'ours')])
    const text = await readFile(join(ours.result!.nodes[0]!.home, 'config/config.toml'), 'utf8')
    for (const key of ['proxy_app', 'abci', 'allow_duplicate_ip', 'addr_book_strict'])
      expect(text).not.toMatch(new RegExp(`^${key} =`, 'm'))
  })

  it('prints a table without --json, and refuses a non-empty output folder unless --overwrite', async () => {
    const out = await tempDir()
    const first = await runCliOnTerminal(TestnetInitFiles, ['--validators', '2', '--output-dir', out])
    expect(first.error).toBeUndefined()
    const text = first.stdout.join('\n')
    expect(text).toContain(`Wrote 2 homes in ${out}`)
    expect(text).toContain('consensus RPC')
    expect(text).toContain(first.result!.nodes[1]!.nodeId)

    const refused = await runCli(TestnetInitFiles, ['--validators', '2', '--output-dir', out])
    expect(refused.error?.message).toBe(`${out} is not empty: pass --overwrite to replace the homes it holds`)
    expect(refused.exitCode).toBe(1)
    const again = await runCli(TestnetInitFiles, ['--validators', '2', '--output-dir', out, '--overwrite'])
    expect(again.error).toBeUndefined()
    expect(again.result!.nodes[0]!.nodeId).not.toBe(first.result!.nodes[0]!.nodeId)
  })

  it('names --chain-id when it is invalid, and refuses ports beyond 65535', async () => {
    const out = await tempDir()
    const chain = await runCli(TestnetInitFiles, ['--validators', '1', '-o', out, '--chain-id', 'nodectl_9000'])
    expect(chain.error?.message).toMatch(/^--chain-id: invalid chain id "nodectl_9000"/)
    expect(chain.exitCode).toBe(1)
    const run = await runCli(TestnetInitFiles, ['--validators', '4', '-o', out, '--starting-port', '65530'])
    expect(run.error?.message).toBe('--starting-port: want ports 65530..65565 within 1..65535')
    expect(run.exitCode).toBe(1)
    // The last node's ABCI port is 65535, its metrics port would be 65536.
    const metrics = await runCli(TestnetInitFiles, ['--validators', '4', '-o', out, '--starting-port', '65501'])
    expect(metrics.error?.message).toBe('--starting-port: want ports 65501..65536 within 1..65535')
  })

  it('show-node-id and show-validator print the keys of a home as CometBFT does', async () => {
    const out = await tempDir()
    const { result } = await runCli(TestnetInitFiles, ['--validators', '1', '-o', out])
    const home = result!.nodes[0]!.home
    const id = await runCli(ShowNodeId, ['--home', home])
    expect(id.stdout).toEqual([result!.nodes[0]!.nodeId])
    const validator = await runCli(ShowValidator, ['--home', home])
    const key = await loadValidatorKey(join(home, 'config/priv_validator_key.json'))
    expect(validator.stdout).toEqual([JSON.stringify({ type: 'tendermint/PubKeyEd25519', value: bytesToBase64(key.publicKey) })])
    // --json on both, the same values as one JSON document each.
    expect(jsonOf(await runCli(ShowValidator, ['--home', home, '--json']))).toEqual({
      type: 'tendermint/PubKeyEd25519',
      value: bytesToBase64(key.publicKey),
    })
    expect(jsonOf(await runCli(ShowNodeId, ['--home', home, '--json']))).toEqual({ nodeId: result!.nodes[0]!.nodeId })

    await writeFile(join(home, 'config/node_key.json'), '{}')
    const broken = await runCli(ShowNodeId, ['--home', home])
    expect(broken.error?.message).toMatch(/^cannot read .*node_key\.json: /)
    expect(broken.exitCode).toBe(1)
  })

  it('a home of a one-validator testnet starts as a node and commits blocks', async () => {
    const out = await tempDir()
    const { result } = await runCli(TestnetInitFiles, ['--validators', '1', '-o', out])
    const t = await startTestNode({ home: result!.nodes[0]!.home, dev: false, flags: FREE_PORTS })
    try {
      const height = async (): Promise<bigint> => BigInt((await rpc<string>(t.url, 'eth_blockNumber')).result!)
      await waitForBlock(t, async () => (await height()) >= 2n, 20_000, 'block 2')
      const balance = await rpc<string>(t.url, 'eth_getBalance', [devAccounts()[9]!.address, 'latest'])
      expect(BigInt(balance.result!)).toBe(10_000n * 10n ** 18n)
    } finally {
      await t.stop()
    }
  }, 30_000)
})
