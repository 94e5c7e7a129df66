/** `nodectl help [command...]`: the help of nodectl or of a command, as `nodectl <command> --help`. */
import { Args, Help } from '@oclif/core'
import { NodectlCommand } from '../cli/nodectl-command.js'

export default class HelpCommand extends NodectlCommand {
  static override summary = 'Show the help of nodectl or of a command.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> query balance']
  static override strict = false
  static override args = { command: Args.string({ description: 'The command, words separated by spaces (e.g. query balance).' }) }

  async run(): Promise<void> {
    const { argv } = await this.parse(HelpCommand)
    await new Help(this.config).showHelp(argv as string[])
  }
}
