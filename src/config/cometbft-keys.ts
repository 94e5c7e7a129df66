/**
 * The config.toml keys only a stock CometBFT reads, which homes for `--engine cometbft` carry
 * (docs/cometbft.md): where it finds the application, and the p2p leniency a network on one loopback
 * address needs. nodectl's loader accepts them without an "unknown key" warning and ignores them.
 */
import type { TomlWritable } from './codecs.js'

/** The engines a home can be written for. */
export const ENGINES = ['nodectl', 'cometbft'] as const
export type Engine = (typeof ENGINES)[number]

/** One key written for CometBFT, with its template comment. */
export interface CometbftKey {
  key: string
  value: TomlWritable
  doc: string
}

/** Keys by config.toml table ('' = top level) that CometBFT reads and nodectl ignores. */
export const COMETBFT_ONLY_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': ['proxy_app', 'abci'],
  p2p: ['allow_duplicate_ip', 'addr_book_strict'],
}

/** What a CometBFT home needs beyond nodectl's keys. */
export interface CometbftHomeOptions {
  /** The application's ABCI address (`nodectl start --abci` listens there: app.toml `[abci] laddr`). */
  proxyApp: string
  /** Several nodes on one IP (a local testnet): let CometBFT accept them as peers. */
  loopbackNetwork: boolean
}

/** The extra keys of a CometBFT home, by table. */
export function cometbftKeys(opts: CometbftHomeOptions): Record<string, CometbftKey[]> {
  const keys: Record<string, CometbftKey[]> = {
    '': [
      {
        key: 'proxy_app',
        value: opts.proxyApp,
        doc: "(CometBFT) The application's ABCI address: where `nodectl start --abci` listens (app.toml [abci] laddr).",
      },
      { key: 'abci', value: 'socket', doc: '(CometBFT) How CometBFT talks to the application: over a socket.' },
    ],
  }
  if (opts.loopbackNetwork) {
    keys.p2p = [
      { key: 'allow_duplicate_ip', value: true, doc: '(CometBFT) Accept several peers from one IP: the nodes of a local network.' },
      { key: 'addr_book_strict', value: false, doc: '(CometBFT) Keep non-routable (loopback) addresses in the address book.' },
    ]
  }
  return keys
}
