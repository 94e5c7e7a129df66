/**
 * The preset of in-process test nodes. It lives in node/, the composition root, because it combines the
 * settings of config/ (L1) with the test preset that consensus/ (L4) owns (each component owns its options
 * and presets: docs/architecture.md).
 */
import { devNodeSettings, type NodeSettings } from '../config/defaults.js'
import { testConsensusConfig } from '../consensus/options.js'

/**
 * Empty-block interval of a test node (ms): one empty block a second, so block time moves for tests that
 * wait on it without the chain racing ahead of tests that count heights (the consensus preset itself
 * makes empty blocks back to back, which its in-process networks want).
 */
export const TEST_EMPTY_BLOCK_INTERVAL_MS = 1000

/**
 * The dev preset with every listener on 127.0.0.1 port 0 (the OS picks free ports; `node.start()` reports
 * them), consensus's {@link testConsensusConfig} timeouts and logging off. Write it into a home with
 * `initDevHome(home, { settings: testNodeSettings() })`.
 */
export function testNodeSettings(moniker = 'test'): NodeSettings {
  const settings = devNodeSettings(moniker)
  settings.consensus = { ...testConsensusConfig, createEmptyBlocksInterval: TEST_EMPTY_BLOCK_INTERVAL_MS }
  settings.rpc.laddr = { host: '127.0.0.1', port: 0 }
  settings.p2p.laddr = { host: '127.0.0.1', port: 0 }
  settings.jsonRpc.address = { host: '127.0.0.1', port: 0 }
  settings.jsonRpc.wsAddress = { host: '127.0.0.1', port: 0 }
  settings.instrumentation.prometheusListenAddr = { host: '127.0.0.1', port: 0 }
  settings.logLevel = 'none'
  return settings
}
