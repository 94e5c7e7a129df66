/** `nodectl help [command...]`: the help of nodectl or of a command, as `nodectl <command> --help`. */
import { Args, Command, Help } from '@oclif/core'

export default class HelpCommand extends Command {
  static override summary = 'Show the help of nodectl or of a command.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> query balance']
  static override strict = false
  static override args = { command: Args.string({ description: 'The command, words separated by spaces (e.g. query balance).' }) }

  async run(): Promise<void> {
    const { argv } = await this.parse(HelpCommand)
    await new Help(this.config).showHelp(argv as string[])
  }
}
