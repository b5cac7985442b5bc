import {expect} from 'chai'
import {readFile, readdir, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {parse} from 'smol-toml'

import {akEntryFile} from '../../../src/launch/ak-launch.js'
import {REGISTERED_TOOL_TIMEOUT_SEC} from '../../../src/codex/limits.js'
import {applyConfigChange, checkServerName, planRegister, planUnregister, registrationEntry} from '../../../src/codex/registration.js'
import {CODEX_APPROVAL_COMMENT} from '../../../src/launch/codex-tool-approval.js'
import {CODEX_REQUIRED_COMMENT, CODEX_STARTUP_TIMEOUT_SEC} from '../../../src/launch/codex-server-start.js'
import {BadInputError, NotFoundError} from '../../../src/errors.js'
import {tempDir} from '../../helpers/codex-fixtures.js'

const USER_CONFIG = `# Codex settings, kept by hand
model = "gpt-5.4"   # the default model

[projects."/home/me/app"]
trust_level = "trusted"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--read-only"]   # keep it read-only
[mcp_servers.docs.env]
TOKEN = "x"

# profiles below
[profiles.fast]
model = "gpt-5.4-mini"
`

describe('registration in config.toml', () => {
  let codexHome: string
  let remove: () => Promise<void>
  let roots: {codexHome: string; pluginRoot: string}
  const configFile = () => path.join(codexHome, 'config.toml')

  beforeEach(async () => {
    ;({dir: codexHome, remove} = await tempDir('ak-register-'))
    roots = {codexHome, pluginRoot: '/plugins'}
  })
  afterEach(() => remove())

  async function register(name = 'agents', env: NodeJS.ProcessEnv = {}) {
    const change = await planRegister(roots, name, env)
    return {change, ...(await applyConfigChange(change))}
  }

  it('appends the entry and changes no other byte', async () => {
    await writeFile(configFile(), USER_CONFIG)
    const {change, backupPath} = await register('agents', {OPENAI_API_KEY: 'sk-test', UNRELATED: '1'})
    expect(change.action).to.equal('add')
    const text = await readFile(configFile(), 'utf8')
    expect(text.startsWith(`${USER_CONFIG}\n[mcp_servers.agents]\n`)).to.equal(true)
    const entry = (parse(text) as {mcp_servers: Record<string, unknown>}).mcp_servers.agents
    expect(JSON.parse(JSON.stringify(entry))).to.deep.equal({
      command: process.execPath,
      args: [akEntryFile(), 'codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', '/plugins'],
      env_vars: ['OPENAI_API_KEY'],
      required: true,
      startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC,
      tool_timeout_sec: REGISTERED_TOOL_TIMEOUT_SEC,
      default_tools_approval_mode: 'approve',
    })
    expect(await readFile(backupPath!, 'utf8')).to.equal(USER_CONFIG)
  })

  it('lets codex exec run agent calls, under a one-line comment saying how to be asked instead', async () => {
    const {change} = await register()
    expect(change.after).to.contain(`\n# ${CODEX_APPROVAL_COMMENT}\ndefault_tools_approval_mode = "approve"\n`)
  })

  it('adds the approval mode, with its comment, to an older entry that has none', async () => {
    const older = `[mcp_servers.agents]\ncommand = "/old/node"\nargs = ["/old/run.js", "codex-agent-runtime", "serve"]\ntool_timeout_sec = 600\n`
    await writeFile(configFile(), `${USER_CONFIG}\n${older}`)
    const {change} = await register()
    expect(change.action).to.equal('replace')
    expect(change.after.endsWith(
      `tool_timeout_sec = 600\n# ${CODEX_REQUIRED_COMMENT}\nrequired = true\nstartup_timeout_sec = ${CODEX_STARTUP_TIMEOUT_SEC}\n# ${CODEX_APPROVAL_COMMENT}\ndefault_tools_approval_mode = "approve"\n`,
    )).to.equal(true)
    await applyConfigChange(await planUnregister(codexHome, 'agents'))
    expect(await readFile(configFile(), 'utf8')).to.equal(USER_CONFIG)
  })

  it('makes Codex fail instead of running without the runtime, waiting for it longer than Codex would', async () => {
    const {change} = await register()
    expect(change.after).to.contain(`\n# ${CODEX_REQUIRED_COMMENT}\nrequired = true\nstartup_timeout_sec = ${CODEX_STARTUP_TIMEOUT_SEC}\n`)
  })

  for (const own of ['required = false', 'startup_timeout_sec = 20', 'startup_timeout_ms = 5000']) {
    it(`keeps the user's own "${own}" when registering again`, async () => {
      await register()
      const key = own.split(' ', 1)[0]!
      const written = await readFile(configFile(), 'utf8')
      const edited = key === 'startup_timeout_ms' ? written.replace(/startup_timeout_sec = \d+/, own) : written.replace(new RegExp(`${key} = \\S+`), own)
      expect(edited).to.contain(own)
      await writeFile(configFile(), edited)
      const again = await planRegister(roots, 'agents', {})
      expect(again.action).to.equal('none')
      expect(again.after).to.equal(edited)
    })
  }

  it("keeps the user's own approval mode (here: to be asked) and changes nothing else for it", async () => {
    await register()
    const asked = (await readFile(configFile(), 'utf8')).replace('default_tools_approval_mode = "approve"', 'default_tools_approval_mode = "writes"  # ask me')
    await writeFile(configFile(), asked)
    const again = await planRegister(roots, 'agents', {})
    expect(again.action).to.equal('none')
    expect(again.after).to.equal(asked)
    expect(again.keptApprovalMode).to.equal('writes')
    expect((await planRegister(roots, 'other', {})).keptApprovalMode).to.equal(undefined)
  })

  it("starts an installed package by its ak bin, or by node and the install's ak file, never npx", () => {
    const words = ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', '/plugins']
    const global = registrationEntry(roots, {}, {}, {kind: 'package', version: '1.2.3', binsOnPath: ['ak'], node: '/opt/node', packageRoot: '/pkg'})
    expect(global).to.include({command: 'ak'})
    expect(global.args).to.deep.equal(words)
    const local = registrationEntry(roots, {}, {}, {kind: 'package', version: '1.2.3', binsOnPath: [], node: '/opt/node', packageRoot: '/pkg'})
    expect([local.command, ...local.args]).to.deep.equal(['/opt/node', '/pkg/bin/run.js', ...words])
  })

  it("forwards a provider's env_key when it is set", async () => {
    await writeFile(configFile(), '[model_providers.corp]\nbase_url = "https://x"\nenv_key = "CORP_KEY"\n')
    const {change} = await register('agents', {CORP_KEY: 'k'})
    expect(change.after).to.contain('env_vars = ["CORP_KEY"]')
  })

  it('gives back the original bytes after register then unregister', async () => {
    for (const original of [USER_CONFIG, 'model = "x"', '', 'a = 1\r\nb = 2\r\n', 'a = 1\n\n', '# only a comment', 'a = 1\r\nb = 2']) {
      await writeFile(configFile(), original)
      await register()
      await applyConfigChange(await planUnregister(codexHome, 'agents'))
      expect(await readFile(configFile(), 'utf8'), JSON.stringify(original)).to.equal(original)
    }
  })

  it('ends an unterminated last line before the blank line and the entry it adds', async () => {
    await writeFile(configFile(), 'model = "x"')
    const {change} = await register()
    expect(change.after.startsWith('model = "x"\n\n[mcp_servers.agents]\n')).to.equal(true)
  })

  it('keeps CRLF line endings in the lines it adds', async () => {
    await writeFile(configFile(), 'a = 1\r\n')
    const {change} = await register()
    expect(change.after.split('\n').slice(0, -1).every((line) => line.endsWith('\r'))).to.equal(true)
  })

  it('creates config.toml when the Codex home has none, and keeps no backup of nothing', async () => {
    const {backupPath} = await register()
    expect(backupPath).to.equal(undefined)
    expect(await readFile(configFile(), 'utf8')).to.match(/^\[mcp_servers\.agents\]\n/)
  })

  it('changes nothing when the same entry is already there', async () => {
    await register()
    const again = await planRegister(roots, 'agents', {})
    expect(again.action).to.equal('none')
  })

  it('replaces an older entry of this runtime in place', async () => {
    await writeFile(configFile(), `${USER_CONFIG}\n[mcp_servers.agents]\ncommand = "/old/node"\nargs = ["/old/run.js", "codex-agent-runtime", "serve"]\n\n[after]\nx = 1\n`)
    const {change} = await register()
    expect(change.action).to.equal('replace')
    const text = await readFile(configFile(), 'utf8')
    expect(text).not.to.contain('/old/node')
    expect(text.endsWith('\n\n[after]\nx = 1\n')).to.equal(true)
    expect(text.startsWith(USER_CONFIG)).to.equal(true)
  })

  it("updates only the keys it owns over an existing entry, keeping the user's keys, comments and subtables byte for byte", async () => {
    const userEntry = [
      '[mcp_servers.agents]',
      'command = "/old/node"   # which node',
      'args = ["/old/run.js", "codex-agent-runtime", "serve"]',
      'default_tools_approval_mode = "prompt"',
      'env_vars = ["OPENAI_API_KEY"]',
      'required = true  # comment',
      'startup_timeout_sec = 30',
      'tool_timeout_sec = 600',
      '',
      '[mcp_servers.agents.env]',
      'RUST_LOG = "info"',
      '',
    ].join('\n')
    await writeFile(configFile(), `${USER_CONFIG}\n${userEntry}`)
    const {change} = await register('agents', {CODEX_API_KEY: 'k'})
    expect(change.action).to.equal('replace')
    const expected = userEntry
      .replace('"/old/node"', JSON.stringify(process.execPath))
      .replace('["/old/run.js", "codex-agent-runtime", "serve"]', JSON.stringify([akEntryFile(), 'codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', '/plugins']).replace(/","/g, '", "'))
    expect(await readFile(configFile(), 'utf8')).to.equal(`${USER_CONFIG}\n${expected}`)
    const again = await planRegister(roots, 'agents', {CODEX_API_KEY: 'k'})
    expect(again.action).to.equal('none')
  })

  it('shows a real diff of the change as its preview', async () => {
    await writeFile(configFile(), `${USER_CONFIG}\n[mcp_servers.agents]\ncommand = "/old/node"\nargs = ["/old/run.js", "codex-agent-runtime", "serve"]\nrequired = true\n`)
    const change = await planRegister(roots, 'agents', {})
    expect(change.diff).to.match(/^--- .*config\.toml\n\+\+\+ .*config\.toml\n@@ /)
    expect(change.diff).to.contain('\n-command = "/old/node"\n')
    expect(change.diff).to.contain(`\n+command = ${JSON.stringify(process.execPath)}\n`)
    expect(change.diff).to.contain('\n required = true')
    expect(change.diff).to.contain('\n+tool_timeout_sec = 600')
    expect(change.diff).not.to.match(/\n[-+]required/)
    const removal = await planUnregister(codexHome, 'agents')
    expect(removal.diff).to.contain('\n-required = true')
  })

  it('refuses a name taken by another server', async () => {
    await writeFile(configFile(), USER_CONFIG)
    const error = await planRegister(roots, 'docs', {}).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(BadInputError)
    expect((error as Error).message).to.contain('Choose another --name')
    expect(await planUnregister(codexHome, 'docs').catch((caught: unknown) => caught)).to.be.instanceOf(BadInputError)
  })

  it('refuses a file that does not parse, quoting the line, and writes nothing', async () => {
    await writeFile(configFile(), 'model = "x"\n[broken\n')
    const error = await planRegister(roots, 'agents', {}).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(BadInputError)
    expect((error as Error).message).to.match(/line 2, column \d+/)
    expect(await readFile(configFile(), 'utf8')).to.equal('model = "x"\n[broken\n')
    expect(await readdir(codexHome)).to.deep.equal(['config.toml'])
  })

  it('refuses to add a table where mcp_servers is an inline table', async () => {
    await writeFile(configFile(), 'mcp_servers = { docs = { command = "d" } }\n')
    expect(await planRegister(roots, 'agents', {}).catch((caught: unknown) => caught)).to.be.instanceOf(BadInputError)
  })

  it('refuses to remove an entry written as dotted keys rather than a table', async () => {
    await writeFile(configFile(), '[mcp_servers]\nagents.command = "ak"\nagents.args = ["codex-agent-runtime", "serve"]\n')
    const error = await planUnregister(codexHome, 'agents').catch((caught: unknown) => caught)
    expect((error as Error).message).to.contain('edit the file by hand')
  })

  it('is not fooled by a header-like line inside a multi-line string', async () => {
    const text = 'notes = """\n[mcp_servers.agents]\n"""\n\n[mcp_servers.agents]\ncommand = "ak"\nargs = ["codex-agent-runtime"]\n'
    await writeFile(configFile(), text)
    const change = await planUnregister(codexHome, 'agents')
    expect(change.after).to.equal('notes = """\n[mcp_servers.agents]\n"""\n')
  })

  describe('finding the entry among comments, strings and other tables', () => {
    const ENTRY = '[mcp_servers.agents]\ncommand = "ak"\nargs = ["codex-agent-runtime"]\n'

    it('sees the header after a comment holding triple quotes', async () => {
      for (const comment of ['# see """', "# see '''", 'a = 1 # see """', `b = "x" # it's """ here`]) {
        await writeFile(configFile(), `${comment}\n\n${ENTRY}`)
        const change = await planUnregister(codexHome, 'agents')
        expect(change.after, comment).to.equal(`${comment}\n`)
      }
    })

    it('sees the header after a one-line string holding triple quotes', async () => {
      const values = [`a = '"""'`, `a = "'''"`, String.raw`a = "say \"\"\" twice"`, `a = '''x'''`, 'a = """x"""', 'a = """x""""', String.raw`a = ["\\", '"""']`]
      for (const value of values) {
        await writeFile(configFile(), `${value}\n\n${ENTRY}`)
        expect(parse(await readFile(configFile(), 'utf8')), value).to.have.property('mcp_servers')
        const change = await planUnregister(codexHome, 'agents')
        expect(change.after, value).to.equal(`${value}\n`)
      }
    })

    it('reads quotes in one-line strings and comments the way TOML does', async () => {
      const values = [
        `a = 'x """'`,
        `a = "x '''"`,
        String.raw`a = "say \" then '''"`,
        String.raw`a = 'C:\' # it's """`,
        `a = ["x", "'''"]`,
        `a = """x"""" # say " then '''`,
      ]
      for (const value of values) {
        await writeFile(configFile(), `${value}\n\n${ENTRY}`)
        expect(parse(await readFile(configFile(), 'utf8')), value).to.have.property('mcp_servers')
        const change = await planUnregister(codexHome, 'agents')
        expect(change.after, value).to.equal(`${value}\n`)
      }
    })

    it('ends a multi-line string where TOML does, escapes and all', async () => {
      const strings = [
        `notes = """\n\\"""\n[mcp_servers.agents]\n"""`, // an escaped quote at the start of a line does not end it
        `notes = """\nlast line"""`,
        `notes = """\npath C:\\\\"""`, // an escaped backslash, then the end
        `notes = '''\nend \\'''`, // no escapes in a literal string
      ]
      for (const notes of strings) {
        await writeFile(configFile(), `${notes}\n\n${ENTRY}`)
        expect(parse(await readFile(configFile(), 'utf8')), notes).to.have.property('notes')
        const change = await planUnregister(codexHome, 'agents')
        expect(change.after, notes).to.equal(`${notes}\n`)
      }
    })

    it('takes no line of a value that spans lines for a header', async () => {
      await writeFile(configFile(), `x = 1\n\n${ENTRY}matrix = [\n  [1],\n  ["b"],\n]\n`)
      const change = await planUnregister(codexHome, 'agents')
      expect(change.after).to.equal('x = 1\n')
    })

    it('does not see a header inside a multi-line string that holds quotes and escapes', async () => {
      for (const [opening, body] of [['"""', String.raw`say \""" and "" or ''`], ["'''", `say "" or '' or \\`]]) {
        const notes = `notes = ${opening}\n${body}\n[mcp_servers.agents]\n${opening}\n`
        await writeFile(configFile(), `${notes}\n${ENTRY}`)
        expect(parse(await readFile(configFile(), 'utf8')), opening).to.have.property('notes')
        const change = await planUnregister(codexHome, 'agents')
        expect(change.after, opening).to.equal(notes)
      }
    })

    it('finds a header with a trailing comment, and replaces it rather than adding a second one', async () => {
      await writeFile(
        configFile(),
        'model = "x"\n\n[mcp_servers.agents] # by ak\ncommand = "/old/node"\nargs = ["/old/run.js", "codex-agent-runtime", "serve"]\n',
      )
      const {change} = await register()
      expect(change.action).to.equal('replace')
      const text = await readFile(configFile(), 'utf8')
      expect(text.match(/\[mcp_servers\.agents\]/g)).to.have.length(1)
      expect(text.startsWith('model = "x"\n\n[mcp_servers.agents]')).to.equal(true)
    })

    it('finds a header written with spaces or quoted keys', async () => {
      for (const header of ['[ mcp_servers . agents ]', '["mcp_servers".agents]', "[mcp_servers.'agents']", '[mcp_servers."ag\\u0065nts"]']) {
        await writeFile(configFile(), `x = 1\n\n${header}\ncommand = "ak"\nargs = ["codex-agent-runtime"]\n`)
        const change = await planUnregister(codexHome, 'agents')
        expect(change.after, header).to.equal('x = 1\n')
      }
    })

    it('keeps a table with a longer key that is not part of the entry', async () => {
      for (const other of ['[projects."/x".sub]', '[mcp_servers_extra.agents.env]', '[[mcp_servers_list]]', '[mcp_servers.agentsx]']) {
        await writeFile(configFile(), `${ENTRY}${other}\nk = 1\n`)
        const change = await planUnregister(codexHome, 'agents')
        expect(change.after, other).to.equal(`${other}\nk = 1\n`)
      }
    })

    it('leaves the comments and blank lines that follow the entry to the next table', async () => {
      await writeFile(configFile(), `a = 1\n\n${ENTRY}\n# about z\n[z]\nb = 2\n`)
      const change = await planUnregister(codexHome, 'agents')
      expect(change.after).to.equal('a = 1\n\n# about z\n[z]\nb = 2\n')
    })
  })

  it('removes the subtables of the entry too', async () => {
    await writeFile(configFile(), 'a = 1\n\n[mcp_servers.agents]\ncommand = "ak"\nargs = ["codex-agent-runtime"]\n[mcp_servers.agents.env]\nX = "1"\n\n[z]\nb = 2\n')
    const change = await planUnregister(codexHome, 'agents')
    expect(change.after).to.equal('a = 1\n\n[z]\nb = 2\n')
  })

  it('edits the file a symlinked config.toml points at', async () => {
    const {dir, remove: removeOther} = await tempDir('ak-register-target-')
    try {
      await writeFile(path.join(dir, 'real.toml'), USER_CONFIG)
      await symlink(path.join(dir, 'real.toml'), configFile())
      await register()
      expect(await readFile(path.join(dir, 'real.toml'), 'utf8')).to.contain('[mcp_servers.agents]')
    } finally {
      await removeOther()
    }
  })

  it('does nothing on unregister when there is no entry', async () => {
    await writeFile(configFile(), USER_CONFIG)
    expect((await planUnregister(codexHome, 'agents')).action).to.equal('none')
  })

  it('fails when the Codex home does not exist, saying so and how to create it', async () => {
    const missing = path.join(codexHome, 'nope')
    const error = await planRegister({codexHome: missing, pluginRoot: '/p'}, 'agents', {}).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(NotFoundError)
    expect((error as Error).message).to.contain(`The Codex home ${missing} does not exist.`)
    expect((error as Error).message).to.contain(`mkdir -p ${missing}`)
    expect((error as Error).message).not.to.contain('not a folder')
  })

  it('fails when the Codex home is a file, saying it is not a folder', async () => {
    const file = path.join(codexHome, 'a-file')
    await writeFile(file, '')
    const error = await planRegister({codexHome: file, pluginRoot: '/p'}, 'agents', {}).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(NotFoundError)
    expect((error as Error).message).to.contain(`The Codex home ${file} is not a folder.`)
  })

  it('refuses when the file changed between planning and writing', async () => {
    await writeFile(configFile(), USER_CONFIG)
    const change = await planRegister(roots, 'agents', {})
    await writeFile(configFile(), `${USER_CONFIG}# edited meanwhile\n`)
    expect(await applyConfigChange(change).catch((caught: unknown) => caught)).to.be.instanceOf(Error)
    expect(await readFile(configFile(), 'utf8')).to.equal(`${USER_CONFIG}# edited meanwhile\n`)
  })

  it('accepts server names that keep qualified tool names within 64 characters', () => {
    expect(checkServerName('agents')).to.equal('agents')
    expect(checkServerName('a'.repeat(11))).to.equal('a'.repeat(11))
    expect(() => checkServerName('a'.repeat(12))).to.throw(BadInputError)
    expect(() => checkServerName('my.agents')).to.throw(BadInputError)
  })
})
