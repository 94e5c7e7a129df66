/** `nodectl version`: the version line `--version` prints (`nodectl/<version> <platform>-<arch> node-<version>`). */
import { NodectlCommand } from '../cli/nodectl-command.js'

/** What `version --json` prints. */
export interface VersionResult {
  version: string
  platform: string
  arch: string
  node: string
}

export default class Version extends NodectlCommand {
  static override summary = 'Print the version of nodectl, the platform and Node.js.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<VersionResult> {
    await this.parse(Version)
    const { version, platform, arch } = this.config
    if (!this.jsonEnabled()) this.log(this.config.userAgent)
    return { version, platform, arch, node: process.version }
  }
}
