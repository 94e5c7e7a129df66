/** The public API of config/: home layout, loading, presets, genesis, `init`. */
export { DEFAULT_CHAIN_ID, DEV_CHAIN_ID, parseChainId } from './chain-id.js'
export { defaultNodeSettings, devNodeSettings, devConsensusConfig, defaultConsensusConfig, type NodeSettings } from './defaults.js'
export { formatDuration, parseDuration } from './duration.js'
export { EVM_DENOM, parseMinimumGasPrices } from './gas-price.js'
export {
  createGenesis,
  decodeGenesis,
  encodeGenesis,
  loadGenesis,
  saveGenesis,
  type GenesisAccount,
  type GenesisDoc,
  type GenesisValidator,
} from './genesis.js'
export { HOME_ENV, defaultHome, homePaths, resolveHome } from './home.js'
export { HomeExistsError, initDevHome, initHome, isHomeInitialised, type InitHomeOptions, type InitHomeResult } from './init-home.js'
export { formatHostPort, formatLaddr, parseHostPort, parseLaddr } from './listen-address.js'
export { loadNodeConfig, type LoadNodeConfigOptions } from './load.js'
export * from './node-config.js'
export { saveMinimumGasPrices } from './save-min-gas-price.js'
export { SETTINGS, envNameOf, type Setting } from './settings.js'
