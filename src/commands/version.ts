import {BaseCommand} from '../base-command.js'
import {akEntryFile} from '../launch/ak-launch.js'

export default class Version extends BaseCommand {
  static override summary = 'Print the version of ak and of the Node.js running it.'

  static override description = `Prints the same line as "ak --version" (and "ak -v"): ak's package name and version, the platform, and the Node.js version. With --json, one JSON document with the version, the Node.js version and path, the platform and ak's entry file.`

  static override examples = [
    {description: 'The version line', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'As JSON, with paths', command: '<%= config.bin %> <%= command.id %> --json'},
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(Version)
    if (!flags.json) {
      this.log(this.config.userAgent)
      return
    }
    const report = {
      name: this.config.name,
      version: this.config.version,
      node: process.versions.node,
      nodePath: process.execPath,
      platform: `${process.platform}-${process.arch}`,
      entry: akEntryFile(),
    }
    this.log(JSON.stringify(report, null, 2))
  }
}
