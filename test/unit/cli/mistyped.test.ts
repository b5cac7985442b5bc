import {expect} from 'chai'
import {spawnSync} from 'node:child_process'

import {RUN_JS} from '../../helpers/clients.js'

/** Runs the built `ak` as a user would, with stdin closed. */
function ak(args: string[]) {
  const result = spawnSync(process.execPath, [RUN_JS, ...args], {input: '', encoding: 'utf8'})
  return {status: result.status, stdout: result.stdout, stderr: result.stderr}
}

describe('mistyped command lines', () => {
  it('suggests the flag a mistyped flag was meant to be, and exits 2', () => {
    const levle = ak(['exec', 'serve', '--levle', 'files'])
    expect(levle.status).to.equal(2)
    expect(levle.stderr).to.equal(
      'Error: Unknown flag --levle (did you mean --level?) for "ak exec serve". Run "ak exec serve --help" for its flags.\n',
    )
    const workspce = ak(['exec', 'call', 'list', '--workspce=/tmp'])
    expect(workspce.status).to.equal(2)
    expect(workspce.stderr).to.contain('--workspce (did you mean --workspace?)')
  })

  it('never suggests a shared flag that does nothing on the command, though it still accepts it', () => {
    for (const command of [['exec', 'serve'], ['codex-agent-runtime', 'serve']]) {
      const bogus = ak([...command, '--bogus'])
      expect(bogus.status).to.equal(2)
      expect(bogus.stderr).to.equal(`Error: Unknown flag --bogus for "ak ${command.join(' ')}". Run "ak ${command.join(' ')} --help" for its flags.\n`)
    }
    const json = ak(['codex-agent-runtime', 'serve', '--list-only', '--json', '--codex-home', '/nonexistent-ak-home'])
    expect(json.stderr).to.contain('--json does not change the --list-only report')
  })

  it('answers help for an unknown command like a mistyped command, with a suggestion', () => {
    const docter = ak(['help', 'docter'])
    expect(docter.status).to.equal(2)
    expect(docter.stdout).to.equal('')
    expect(docter.stderr).to.equal(
      'Error: There is no help for "docter": it is not an ak command. Did you mean "ak help doctor"? Run "ak help" for the list of commands.\n',
    )
    const foo = ak(['help', 'foo'])
    expect(foo.status).to.equal(2)
    expect(foo.stderr).to.match(/^Error: There is no help for "foo": it is not an ak command\. Run "ak help" for the list of commands\.\n$/)
  })

  it('spells an unknown command in help the way it was typed, never as an id with colons', () => {
    for (const args of [['help', 'exec', 'srve'], ['exec', 'srve', '--help']]) {
      const result = ak(args)
      expect(result.status).to.equal(2)
      expect(result.stderr).not.to.contain('exec:')
      expect(result.stderr).to.contain('There is no help for "exec srve"')
      expect(result.stderr).to.contain('Did you mean "ak help exec serve"?')
    }
  })

  it('still shows help for a command followed by its arguments', () => {
    const result = ak(['help', 'exec', 'call', 'list'])
    expect(result.status).to.equal(0)
    expect(result.stdout).to.contain('$ ak exec call TOOL')
  })

  it('names the missing argument of "exec call", once, without notes about other flags', () => {
    const result = ak(['exec', 'call'])
    expect(result.status).to.equal(2)
    expect(result.stderr).to.equal(
      'Error: "ak exec call" needs TOOL: Name of the tool to call (see "exec tools"). Run "ak exec call --help" for its usage and examples.\n',
    )
  })
})

describe('missing required flags', () => {
  it('names a missing required flag with the values it takes', () => {
    const result = ak(['exec', 'config'])
    expect(result.status).to.equal(2)
    expect(result.stderr).to.equal(
      'Error: "ak exec config" needs --client (one of codex, claude, vscode, gemini, opencode, cursor, windsurf, zed): MCP client the block is for. ' +
        'Run "ak exec config --help" for its usage and examples.\n',
    )
  })
})

describe('help and version flags', () => {
  it('takes -h for help on every command', () => {
    const short = ak(['exec', 'serve', '-h'])
    expect(short.status).to.equal(0)
    expect(short.stdout).to.equal(ak(['exec', 'serve', '--help']).stdout)
    expect(ak(['doctor', '-h']).stdout).to.contain('$ ak doctor')
  })

  it('prints the version for "ak version", "ak -v" and "ak --version" alike', () => {
    const long = ak(['--version'])
    expect(long.status).to.equal(0)
    expect(long.stdout).to.match(/^@agentorg\/ak\/\d+\.\d+\.\d+ \S+ node-v\d+/)
    for (const args of [['version'], ['-v']]) {
      const result = ak(args)
      expect(result.status, args.join(' ')).to.equal(0)
      expect(result.stdout, args.join(' ')).to.equal(long.stdout)
    }
  })

  it('gives the version, Node.js and entry file as JSON with "ak version --json"', () => {
    const report = JSON.parse(ak(['version', '--json']).stdout)
    expect(report).to.include({name: '@agentorg/ak', node: process.versions.node})
    expect(report.entry).to.equal(RUN_JS)
  })
})
