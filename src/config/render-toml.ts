/**
 * The commented config.toml and app.toml templates, generated from the settings table (as CometBFT's
 * `config/toml.go` and the Cosmos SDK's `server/config/toml.go` do from theirs): every key is written
 * with its comment, so a new home documents itself.
 */
import type { CometbftKey } from './cometbft-keys.js'
import type { TomlScalar, TomlWritable } from './codecs.js'
import type { NodeSettings } from './defaults.js'
import { SECTIONS, SETTINGS, type ConfigFile } from './settings.js'

/** Width the comments are wrapped at. */
const COMMENT_WIDTH = 100

const PREAMBLE = `# This is a TOML config file.
# For more information, see https://github.com/toml-lang/toml

# Paths are absolute or relative to the home directory (default "~/.nodectl", or $NODECTL_HOME,
# or the --home flag).
#
# Every key can also be given as a flag, --<table>.<key> (top-level keys: --<key>), or as an
# environment variable, NODECTL_<TABLE>_<KEY> in upper case with "-" and "." turned into "_"
# (e.g. --rpc.laddr, NODECTL_JSON_RPC_ADDRESS). Flags win over the environment, which wins over
# this file, which wins over the defaults.`

/** Renders config.toml holding `settings`, and `extra` keys (by table) only CometBFT reads. */
export function renderConfigToml(settings: NodeSettings, extra: Record<string, CometbftKey[]> = {}): string {
  return renderToml('config.toml', settings, extra)
}

/** Renders app.toml holding `settings`. */
export function renderAppToml(settings: NodeSettings): string {
  return renderToml('app.toml', settings)
}

/** Renders one of the two files: preamble, then each table with its commented keys. */
export function renderToml(file: ConfigFile, settings: NodeSettings, extra: Record<string, CometbftKey[]> = {}): string {
  const out: string[] = [PREAMBLE, '']
  for (const section of SECTIONS.filter((s) => s.file === file)) {
    out.push('#'.repeat(COMMENT_WIDTH), `### ${section.doc}`, '#'.repeat(COMMENT_WIDTH), '')
    if (section.name) out.push(`[${section.name}]`, '')
    for (const setting of SETTINGS.filter((s) => s.file === file && s.section === section.name)) {
      out.push(...wrapComment(setting.doc), `${setting.key} = ${formatTomlValue(setting.read(settings))}`, '')
    }
    for (const { key, value, doc } of extra[section.name] ?? []) out.push(...wrapComment(doc), `${key} = ${formatTomlValue(value)}`, '')
  }
  return out.join('\n')
}

/** A TOML literal: basic strings (JSON escapes are valid TOML escapes), integers, booleans, arrays. */
export function formatTomlValue(value: TomlWritable): string {
  if (Array.isArray(value)) return `[${value.map(formatScalar).join(', ')}]`
  return formatScalar(value)
}

function formatScalar(value: TomlScalar): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`cannot write ${value} to TOML`)
  return String(value)
}

/** `# `-prefixed lines of at most {@link COMMENT_WIDTH} characters. */
function wrapComment(text: string): string[] {
  const lines: string[] = []
  let line = '#'
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > COMMENT_WIDTH && line !== '#') {
      lines.push(line)
      line = '#'
    }
    line += ' ' + word
  }
  lines.push(line)
  return lines
}
