import { describe, expect, it } from 'vitest'
import { defaultStateSyncConfig } from '../../../../src/config/defaults.js'
import { validateStateSyncConfig } from '../../../../src/consensus/statesync/state-sync.js'

const enabled = () => ({
  ...defaultStateSyncConfig(),
  enable: true,
  rpcServers: ['a:26657', 'b:26657'],
  trustHeight: 10,
  trustHash: 'AB'.repeat(32),
})

describe('validateStateSyncConfig', () => {
  it('accepts CometBFT defaults, off or with the trust options set', () => {
    expect(() => validateStateSyncConfig(defaultStateSyncConfig())).not.toThrow()
    expect(() => validateStateSyncConfig(enabled())).not.toThrow()
    expect(() => validateStateSyncConfig({ ...enabled(), discoveryTime: 0 })).not.toThrow()
  })

  it('names the key that is wrong', () => {
    expect(() => validateStateSyncConfig({ ...enabled(), rpcServers: ['a:26657'] })).toThrow(/^statesync\.rpc_servers: at least two/)
    expect(() => validateStateSyncConfig({ ...enabled(), trustHeight: 0 })).toThrow(/^statesync\.trust_height: is required/)
    expect(() => validateStateSyncConfig({ ...enabled(), trustHash: '' })).toThrow(/^statesync\.trust_hash: is required/)
    expect(() => validateStateSyncConfig({ ...enabled(), trustHash: 'zz' })).toThrow(/^statesync\.trust_hash: "zz" is not hex/)
    expect(() => validateStateSyncConfig({ ...enabled(), trustHash: 'ABCD' })).toThrow(/^statesync\.trust_hash: want 32 bytes/)
    expect(() => validateStateSyncConfig({ ...enabled(), discoveryTime: 1000 })).toThrow(/^statesync\.discovery_time/)
    expect(() => validateStateSyncConfig({ ...enabled(), chunkRequestTimeout: 1000 })).toThrow(/^statesync\.chunk_request_timeout/)
  })
})
