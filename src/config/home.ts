/**
 * The home directory and its fixed layout (CometBFT's `config/` + `data/`, plus geth's `keystore/`).
 *
 *   <home>/config/{config.toml, app.toml, genesis.json, node_key.json, priv_validator_key.json, jwt.hex}
 *   <home>/data/{priv_validator_state.json, nodectl.db/, cs.wal/wal}
 *   <home>/keystore/
 */
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { HomePaths } from './node-config.js'

/** Environment variable naming the home when `--home` is not given (as CometBFT's `CMTHOME`). */
export const HOME_ENV = 'NODECTL_HOME'

/** The home when neither `--home` nor {@link HOME_ENV} is set: `~/.nodectl`. */
export function defaultHome(): string {
  return join(homedir(), '.nodectl')
}

/**
 * The home to use, as an absolute path: the `--home` flag, else `$NODECTL_HOME`, else `~/.nodectl`.
 * A leading `~/` is expanded (shells do not expand it inside `--home=~/x`).
 */
export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag || env[HOME_ENV] || defaultHome()
  const expanded = chosen === '~' ? homedir() : chosen.startsWith('~/') ? join(homedir(), chosen.slice(2)) : chosen
  return resolve(expanded)
}

/** Default paths, relative to the home, that config.toml can change (CometBFT keys of the same names). */
export const DEFAULT_FILES = {
  /** `genesis_file`. */
  genesisFile: 'config/genesis.json',
  /** `priv_validator_key_file`. */
  privValidatorKeyFile: 'config/priv_validator_key.json',
  /** `priv_validator_state_file`. */
  privValidatorStateFile: 'data/priv_validator_state.json',
  /** `node_key_file`. */
  nodeKeyFile: 'config/node_key.json',
  /** `db_dir`: directory holding the database `nodectl.db`. */
  dbDir: 'data',
  /** `[consensus] wal_file`. */
  walFile: 'data/cs.wal/wal',
} as const

/** The file locations config.toml may move (relative to the home, or absolute). */
export type HomeFiles = { -readonly [K in keyof typeof DEFAULT_FILES]: string }

/** Name of the LevelDB directory inside `db_dir`. */
export const DB_NAME = 'nodectl.db'

/** Absolute paths of every file of the home `home`, with `files` (default {@link DEFAULT_FILES}) applied. */
export function homePaths(home: string, files: HomeFiles = { ...DEFAULT_FILES }): HomePaths {
  const root = resolve(home)
  const at = (p: string): string => resolve(root, p)
  return {
    home: root,
    configDir: at('config'),
    dataDir: at('data'),
    keystoreDir: at('keystore'),
    configToml: at('config/config.toml'),
    appToml: at('config/app.toml'),
    genesis: at(files.genesisFile),
    nodeKey: at(files.nodeKeyFile),
    privValidatorKey: at(files.privValidatorKeyFile),
    privValidatorState: at(files.privValidatorStateFile),
    db: join(at(files.dbDir), DB_NAME),
    wal: at(files.walFile),
    jwtSecret: at('config/jwt.hex'),
  }
}
