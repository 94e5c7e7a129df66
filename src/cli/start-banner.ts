/**
 * What `nodectl start` prints once the node serves: the Anvil-like banner on a terminal, or with `--json`
 * one JSON object (`{"event": "serving", …}`) with the same facts, for scripts and supervisors; then
 * block sync progress as lines or `{"event": "sync", …}` objects.
 */
import { formatDuration } from '../config/duration.js'
import type { ConsensusConfig, JsonRpcConfig, NodeConfig } from '../config/node-config.js'
import type { SyncProgress } from '../consensus/block-sync.js'
import { ETH_DERIVATION_PREFIX } from '../crypto/hd.js'
import { DEV_MNEMONIC, devAccounts } from '../keystore/dev-accounts.js'
import type { AbciNodeAddresses } from '../node/abci-node.js'
import type { NodeAddresses } from '../node/node.js'
import { formatEther } from '../primitives/ether.js'
import { bytesToUpperHex } from '../primitives/hex.js'

/** The banner of `start --abci`: what CometBFT must be told, and where EVM clients connect. */
export function renderAbciBanner(config: NodeConfig, addresses: AbciNodeAddresses, version: string): string {
  const lines: string[] = ['', `nodectl ${version} — EVM application for CometBFT (ABCI)`, '']
  const row = (label: string, value: string): void => {
    lines.push(`${(label + ':').padEnd(20)}${value}`)
  }
  row('Chain ID', config.chainId)
  row('EVM chain ID', config.evmChainId.toString())
  row('Home', config.home)
  row('Height', 'the last committed one is replayed from CometBFT on connection')
  row('ABCI', `${addresses.abci} (start CometBFT with: cometbft start --home ${config.home} --proxy_app ${addresses.abci})`)
  row('Transactions to', `${addresses.cometRpc} (CometBFT's broadcast_tx_sync)`)
  row('EVM JSON-RPC', addresses.jsonRpcHttp ? `${addresses.jsonRpcHttp} (${config.jsonRpc.api.join(', ')})` : 'off (--json-rpc.enable)')
  row('EVM WebSocket', addresses.jsonRpcWs ?? 'off (--json-rpc.enable)')
  lines.push('', 'Press Ctrl-C to stop.', '')
  return lines.join('\n')
}

/** What the banner shows. */
export interface StartBannerInput {
  config: NodeConfig
  addresses: NodeAddresses
  /** nodectl's version. */
  version: string
  /** The home is a temporary directory deleted on exit. */
  temporaryHome: boolean
  /** The dev accounts' genesis balances by lower-case address (readDevBalances); read on a dev chain only. */
  devBalances: ReadonlyMap<string, bigint>
}

/** The Anvil-like text printed once the node listens. */
export function renderStartBanner({ config, addresses, version, temporaryHome, devBalances: funded }: StartBannerInput): string {
  const lines: string[] = ['', `nodectl ${version}${config.dev ? ' — development chain' : ''}`, '']
  const heading = (title: string): void => {
    lines.push(title, '='.repeat(title.length))
  }
  const row = (label: string, value: string): void => {
    lines.push(`${(label + ':').padEnd(20)}${value}`)
  }
  if (config.dev) {
    const accounts = devAccounts()
    heading('Available Accounts')
    for (const a of accounts) lines.push(`(${a.index}) ${a.address} (${formatEther(funded.get(a.address.toLowerCase()) ?? 0n)} ETH)`)
    lines.push('')
    heading('Private Keys')
    for (const a of accounts) lines.push(`(${a.index}) ${a.privateKey}`)
    lines.push('')
    heading('Wallet')
    row('Mnemonic', DEV_MNEMONIC)
    row('Derivation path', ETH_DERIVATION_PREFIX + '<i>')
    row('Key store', `${config.paths.keystoreDir} (named dev0…dev9, passphrase "")`)
    if (addresses.jsonRpcHttp || addresses.jsonRpcWs) {
      row('Unlocked', 'all 10 accounts, until the node stops: eth_accounts lists them, and eth_sendTransaction, eth_sign,')
      lines.push(`${''.padEnd(20)}a JsonRpcSigner or \`cast send --unlocked --from <account>\` sign with them at once`)
    } else row('Unlocked', 'none can be used: the EVM JSON-RPC is off (turn it on with --json-rpc.enable)')
    lines.push('')
  }
  heading('Chain')
  row('Chain ID', config.chainId)
  row('EVM chain ID', config.evmChainId.toString())
  row('Home', config.home + (temporaryHome ? ' (temporary, deleted on exit)' : ''))
  for (const v of config.genesis.validators)
    row('Validator', `${bytesToUpperHex(v.address)} ${v.name ? `"${v.name}" ` : ''}(power ${v.power})`)
  row('Block gas limit', config.genesis.consensusParams.block.maxGas.toString())
  row('Min gas price', `${config.minGasPrice} wei`)
  lines.push('')
  heading('Blocks')
  row('Production', describeBlockProduction(config.consensus))
  row('Timeouts', describeTimeouts(config.consensus))
  lines.push('')
  heading('Listening')
  row('EVM JSON-RPC', addresses.jsonRpcHttp ? `${addresses.jsonRpcHttp} (${config.jsonRpc.api.join(', ')})` : 'off (--json-rpc.enable)')
  row('EVM WebSocket', addresses.jsonRpcWs ?? 'off (--json-rpc.enable)')
  if (addresses.jsonRpcHttp || addresses.jsonRpcWs) row('Browser pages', describeBrowserOrigins(config.jsonRpc))
  const comet = addresses.cometRpc?.replace(/^tcp:\/\//, '')
  row('Consensus RPC', comet ? `http://${comet} (WebSocket ws://${comet}/websocket)` : 'off (--rpc.laddr)')
  if (addresses.metrics) row('Metrics', `${addresses.metrics} (Prometheus)`)
  lines.push('', 'Press Ctrl-C to stop.', '')
  return lines.join('\n')
}

/**
 * Which web pages' origins may use the EVM JSON-RPC: said in the banner because `--dev` is no more
 * permissive than a node (geth's CORS default, issue 27): a dapp served from its own origin needs it named.
 */
export function describeBrowserOrigins(c: Pick<JsonRpcConfig, 'enabledUnsafeCors' | 'httpCorsDomain' | 'wsOrigins'>): string {
  const http = c.enabledUnsafeCors
    ? 'any origin (enabled-unsafe-cors)'
    : c.httpCorsDomain.length === 0
      ? 'no other origin (name one with --json-rpc.http-corsdomain)'
      : c.httpCorsDomain.join(', ')
  const ws = c.wsOrigins.length === 0 ? 'http://localhost' : c.wsOrigins.join(', ')
  return `HTTP ${http}; WebSocket ${ws}`
}

/** When blocks are proposed, in CometBFT's terms (`WaitForTxs` = !create_empty_blocks || interval > 0). */
export function describeBlockProduction(c: ConsensusConfig): string {
  const waitsForTxs = !c.createEmptyBlocks || c.createEmptyBlocksInterval > 0
  if (!waitsForTxs)
    return `a block every height, ${c.skipTimeoutCommit ? 'the next one as soon as all precommits are in' : `${formatDuration(c.timeoutCommit)} after the previous commit`}`
  if (c.createEmptyBlocksInterval > 0)
    return `as soon as transactions wait; an empty block after ${formatDuration(c.createEmptyBlocksInterval)} without any`
  return 'only when transactions wait'
}

function describeTimeouts(c: ConsensusConfig): string {
  const d = formatDuration
  return `propose ${d(c.timeoutPropose)} (+${d(c.timeoutProposeDelta)}/round), prevote ${d(c.timeoutPrevote)}, precommit ${d(c.timeoutPrecommit)}, commit ${d(c.timeoutCommit)}${c.skipTimeoutCommit ? ' (skipped once all precommits are in)' : ''}`
}

/** The consensus RPC's HTTP and WebSocket URLs from its listen address (`tcp://host:port`). */
function cometUrls(cometRpc: string | undefined): { http: string; websocket: string } | null {
  const hostPort = cometRpc?.replace(/^tcp:\/\//, '')
  return hostPort ? { http: `http://${hostPort}`, websocket: `ws://${hostPort}/websocket` } : null
}

/** `start --json`: the banner's facts as one object; URLs are null for a listener that is off. */
export function startBannerJson({
  config,
  addresses,
  version,
  temporaryHome,
  devBalances: funded,
}: StartBannerInput): Record<string, unknown> {
  return {
    event: 'serving',
    version,
    engine: 'nodectl',
    dev: config.dev,
    chainId: config.chainId,
    evmChainId: Number(config.evmChainId),
    home: config.home,
    temporaryHome,
    validators: config.genesis.validators.map((v) => ({
      address: bytesToUpperHex(v.address),
      name: v.name ?? null,
      power: v.power.toString(),
    })),
    blockGasLimit: config.genesis.consensusParams.block.maxGas.toString(),
    minGasPrice: config.minGasPrice.toString(),
    jsonRpc: { http: addresses.jsonRpcHttp ?? null, ws: addresses.jsonRpcWs ?? null, api: config.jsonRpc.api },
    cometRpc: cometUrls(addresses.cometRpc),
    metrics: addresses.metrics ?? null,
    ...(config.dev
      ? {
          accounts: devAccounts().map((a) => ({
            address: a.address,
            privateKey: a.privateKey,
            balance: (funded.get(a.address.toLowerCase()) ?? 0n).toString(),
          })),
          mnemonic: DEV_MNEMONIC,
          derivationPath: `${ETH_DERIVATION_PREFIX}<i>`,
          keystore: config.paths.keystoreDir,
        }
      : {}),
  }
}

/** `start --abci --json`: the ABCI banner's facts as one object. */
export function abciBannerJson(config: NodeConfig, addresses: AbciNodeAddresses, version: string): Record<string, unknown> {
  return {
    event: 'serving',
    version,
    engine: 'cometbft',
    dev: false,
    chainId: config.chainId,
    evmChainId: Number(config.evmChainId),
    home: config.home,
    abci: addresses.abci,
    jsonRpc: { http: addresses.jsonRpcHttp ?? null, ws: addresses.jsonRpcWs ?? null, api: config.jsonRpc.api },
    cometRpc: cometUrls(addresses.cometRpc),
  }
}

/** A block sync progress report: `synced 1200/5000 blocks, 310 blocks/s`, or its JSON object. */
export function renderSyncProgress(p: SyncProgress, json: boolean): string {
  const blocksPerSecond = Math.round(p.blocksPerSecond)
  if (json) return JSON.stringify({ event: 'sync', height: p.height, target: p.target, blocksPerSecond })
  return `synced ${p.height}/${p.target} blocks, ${blocksPerSecond} blocks/s`
}

/** A state sync progress report: `state sync: snapshot 2000, chunk 3/10 applied`, or its JSON object. */
export function renderStateSyncProgress(p: { height: number; applied: number; total: number }, json: boolean): string {
  if (json) return JSON.stringify({ event: 'statesync', height: p.height, applied: p.applied, total: p.total })
  return `state sync: snapshot ${p.height}, chunk ${p.applied}/${p.total} applied`
}
