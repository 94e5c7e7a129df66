/**
 * `nodectl config show [--home] [--<table>.<key> VALUE]...`: the settings `nodectl start` would run
 * with (defaults < config.toml/app.toml < NODECTL_* < flags) and where each came from.
 */
import { Flags } from '@oclif/core'
import { isTerminal, listTable } from '../../cli/render.js'
import { buildSettingFlags } from '../../cli/setting-flags.js'
import { normalizeBooleanArgs } from '../../cli/start-argv.js'
import { resolveHome } from '../../config/home.js'
import { loadNodeConfig } from '../../config/load.js'
import { formatTomlValue } from '../../config/render-toml.js'
import type { NodeSettings } from '../../config/defaults.js'
import { SETTINGS, type Setting } from '../../config/settings.js'
import { ConfigError } from '../../utils/errors.js'
import { NodectlCommand } from '../../cli/nodectl-command.js'

/** One setting as `config show` reports it. */
export interface ShownSetting {
  /** The flag name, `<table>.<key>` (`json-rpc.address`, `log_level`). */
  setting: string
  file: string
  /** TOML table ('' for a top-level key). */
  section: string
  key: string
  /** The value as TOML writes it. */
  value: string
  /** `default`, the file (`app.toml`), the variable (`NODECTL_…`) or the flag (`--…`) the value came from. */
  source: string
}

export default class ConfigShow extends NodectlCommand {
  static override summary = 'Show the effective settings and where each comes from.'
  static override description =
    'Resolves the settings of --home as "nodectl start" would, with the same flags and NODECTL_* variables (defaults < ' +
    'config.toml/app.toml < environment < flags), and lists each with its value and its source. A table on a terminal; ' +
    '"<setting> = <value>  # <source>" lines into a pipe; --json for the list.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --home ./node0 --json-rpc.address 127.0.0.1:9545',
    'NODECTL_LOG_LEVEL=debug <%= config.bin %> <%= command.id %> | grep log_level',
  ]
  static override enableJsonFlag = true
  static override flags = {
    home: Flags.string({ summary: 'Node home directory [default: $NODECTL_HOME, else ~/.nodectl].' }),
    ...buildSettingFlags(),
  }

  async run(): Promise<ShownSetting[]> {
    const { flags } = await this.parse(ConfigShow, normalizeBooleanArgs(this.argv))
    let shown: ShownSetting[] = []
    try {
      await loadNodeConfig({
        home: resolveHome(flags.home),
        flags: flags as Record<string, unknown>,
        onResolved: (settings, sources) => {
          shown = SETTINGS.map((setting) => describe(setting, settings, sources.get(setting)))
        },
      })
    } catch (err) {
      if (err instanceof ConfigError) this.error(err.message, { exit: 1 })
      throw err
    }
    if (!this.jsonEnabled()) {
      if (isTerminal())
        this.log(
          listTable(
            ['setting', 'value', 'source'],
            shown.map((s) => [s.setting, s.value, s.source]),
          ),
        )
      else for (const s of shown) this.log(`${s.setting} = ${s.value}  # ${s.source}`)
    }
    return shown
  }
}

function describe(setting: Setting, settings: NodeSettings, label: string | undefined): ShownSetting {
  return {
    setting: setting.flag,
    file: setting.file,
    section: setting.section,
    key: setting.key,
    value: formatTomlValue(setting.read(settings)),
    source: label === undefined ? 'default' : label.startsWith(setting.file) ? setting.file : label,
  }
}
