/** One oclif flag per setting (`--<table>.<key>`), for `start` and `config show`. */
import { Flags, type Interfaces } from '@oclif/core'
import { SETTINGS } from '../config/settings.js'

/** oclif help group of each TOML table. */
const HELP_GROUP: Record<string, string> = {
  '': 'NODE',
  rpc: 'CONSENSUS RPC',
  p2p: 'P2P',
  mempool: 'MEMPOOL',
  consensus: 'CONSENSUS',
  tx_index: 'TX INDEX',
  api: 'JSON-RPC',
  'json-rpc': 'JSON-RPC',
}

/** One flag per setting, named `<section>.<key>` (settings.ts); no oclif defaults, so unset flags do not hide the files. */
export function buildSettingFlags(): Interfaces.FlagInput {
  const out: Interfaces.FlagInput = {}
  for (const s of SETTINGS) {
    const helpGroup = HELP_GROUP[s.section] ?? s.section.toUpperCase()
    const summary = `${s.doc} (${s.file}${s.section ? ` [${s.section}]` : ''} ${s.key}, env ${s.env})`
    out[s.flag] = s.flagKind === 'boolean' ? Flags.boolean({ summary, allowNo: true, helpGroup }) : Flags.string({ summary, helpGroup })
  }
  return out
}
