import {expect} from 'chai'

import ExecServe from '../../../../src/commands/exec/serve.js'
import {BadInputError} from '../../../../src/errors.js'
import {directServeRequest, parseStandaloneArgs, standaloneHelp} from '../../../../src/exec/serving/serve-command-line.js'
import {EXEC_SERVE_OPTIONS, type ServeOption, resolveServeSettings} from '../../../../src/exec/serving/serve-options.js'

describe('the AgentExec server options, declared once for ak exec serve and dist/agentexec.js', () => {
  it('gives ak exec serve every option, with the same alias, choices and default', () => {
    for (const [name, option] of Object.entries(EXEC_SERVE_OPTIONS) as Array<[string, ServeOption]>) {
      const flag = (ExecServe.flags as Record<string, {char?: string; options?: string[]; default?: unknown; type: string}>)[name]
      expect(flag, name).to.not.equal(undefined)
      expect(flag!.type, name).to.equal(option.type === 'boolean' ? 'boolean' : 'option')
      expect(flag!.char, name).to.equal(option.char)
      expect(flag!.options, name).to.deep.equal(option.options ? [...option.options] : undefined)
      expect(flag!.default, name).to.equal(option.default)
    }
  })

  it('gives the standalone parser every option, by name and by alias', () => {
    const request = parseStandaloneArgs(['-w', '/ws', '-l', 'files', '--http', '127.0.0.1:0', '--session-idle-ms', '5', '-q'], 'agentexec')
    expect(request).to.deep.equal({
      kind: 'serve',
      values: {workspace: '/ws', level: 'files', http: '127.0.0.1:0', 'session-idle-ms': '5'},
      quiet: true,
    })
  })

  it('lists the visible options in help, and leaves hidden ones out', () => {
    const help = standaloneHelp('agentexec', 'summary')
    for (const [name, option] of Object.entries(EXEC_SERVE_OPTIONS) as Array<[string, ServeOption]>) {
      if (option.hidden) expect(help).not.to.contain(`--${name}`)
      else expect(help).to.contain(`--${name}`)
    }
  })

  for (const [args, message] of [
    [['--level', 'root'], 'Expected --level=root to be one of: read, files, terminal\nSee more help with --help'],
    [['--nope'], 'Unknown flag --nope for "agentexec". Run "agentexec --help" for its flags.'],
    [['--levl', 'files'], 'Unknown flag --levl (did you mean --level?) for "agentexec".'],
    [['-x'], 'Unknown flag -x for "agentexec". Run "agentexec --help" for its flags.'],
    [['--http'], 'Flag --http expects a value'],
    [['--quiet=yes'], '--quiet takes no value'],
    [['serve'], '"agentexec" takes no argument "serve". Run "agentexec --help" for its usage.'],
  ] as const) {
    it(`refuses ${args.join(' ')} with a usage error that says what to do`, () => {
      expect(() => parseStandaloneArgs([...args], 'agentexec')).to.throw(BadInputError, message)
    })
  }

  for (const [args, name] of [
    [['--level', 'read', '--level', 'terminal'], 'level'],
    [['-l', 'read', '--level=terminal'], 'level'],
    [['--workspace', '/a', '-w', '/b'], 'workspace'],
    [['--sandbox-network', '--sandbox-network'], 'sandbox-network'],
    [['-q', '--quiet'], 'quiet'],
  ] as const) {
    it(`refuses ${args.join(' ')} naming the flag, instead of letting the last one win`, () => {
      expect(() => parseStandaloneArgs([...args], 'agentexec')).to.throw(BadInputError, `Flag --${name} can only be given once`)
    })
  }

  it('answers --help and --version before checking anything else', () => {
    expect(parseStandaloneArgs(['--level', 'x', '--help'], 'agentexec')).to.deep.equal({kind: 'help'})
    expect(parseStandaloneArgs(['-v'], 'agentexec')).to.deep.equal({kind: 'version'})
  })

  it('leaves to oclif what only oclif reports on: help, shared flags, mistakes', () => {
    expect(directServeRequest(['--workspace', '/ws', '-q'])).to.deep.equal({kind: 'serve', values: {workspace: '/ws'}, quiet: true})
    for (const args of [['--help'], ['--json'], ['-y'], ['--no-interactive'], ['--bogus'], ['--level', 'x'], ['--', 'x'], ['--version']]) {
      expect(directServeRequest(args), args.join(' ')).to.equal(undefined)
    }
  })
})

describe('resolveServeSettings', () => {
  const env = {AGENTEXEC_TOKEN: 'secret'}

  it('defaults to the current directory at level read over stdio, without a sandbox', () => {
    const settings = resolveServeSettings({}, {}, '/here')
    expect(settings).to.deep.include({workspace: '/here', level: 'read'})
    expect(settings.sandbox.mode).to.equal('off')
    expect(settings.http).to.equal(undefined)
  })

  it('reads the sandbox mode and its network switch, and refuses an unknown mode naming the valid ones', () => {
    expect(resolveServeSettings({sandbox: 'workspace-write'}, {}, '/here').sandbox).to.deep.equal({mode: 'workspace-write', network: false})
    expect(resolveServeSettings({sandbox: 'read-only', 'sandbox-network': true}, {}, '/here').sandbox).to.deep.equal({mode: 'read-only', network: true})
    expect(() => resolveServeSettings({sandbox: 'full'}, {}, '/here')).to.throw(/off, workspace-write, read-only/)
  })

  it('reads the HTTP address, the token and the idle expiry', () => {
    expect(resolveServeSettings({http: '[::1]:0', 'session-idle-ms': '1500'}, env, '/here').http).to.deep.equal({
      address: {host: '::1', port: 0},
      token: 'secret',
      sessionIdleMs: 1500,
    })
  })

  for (const [values, environment, message] of [
    [{level: 'admin'}, env, 'Unknown level "admin"'],
    [{http: '10.0.0.1:80'}, env, 'loopback'],
    [{http: '127.0.0.1:80'}, {AGENTEXEC_TOKEN: ' '}, 'AGENTEXEC_TOKEN, which is missing or empty'],
    [{http: '127.0.0.1:80', 'session-idle-ms': '0'}, env, '--session-idle-ms "0" is not a whole number'],
    [{http: '127.0.0.1:80', 'session-idle-ms': '1e3'}, env, '--session-idle-ms "1e3" is not a whole number'],
  ] as const) {
    it(`refuses ${JSON.stringify(values)} naming what to fix`, () => {
      expect(() => resolveServeSettings(values, environment, '/here')).to.throw(BadInputError, message)
    })
  }
})
