import {expect} from 'chai'

import {COMMAND_TAG_VARIABLE, commandEnvironment, resolveShell, shellInvocation} from '../../../../src/exec/terminal/shell.js'

describe('shell resolution', () => {
  it('uses $SHELL when it is an executable POSIX-family shell', () => {
    expect(resolveShell({SHELL: '/bin/sh'})).to.equal('/bin/sh')
  })

  it('falls back to /bin/bash when $SHELL is unset, missing or not a known shell', () => {
    expect(resolveShell({})).to.equal('/bin/bash')
    expect(resolveShell({SHELL: '/nonexistent/bash'})).to.equal('/bin/bash')
    expect(resolveShell({SHELL: '/usr/sbin/nologin'})).to.equal('/bin/bash')
    expect(resolveShell({SHELL: 'bash'})).to.equal('/bin/bash')
  })

  it('runs the command as a login shell with stderr joined to stdout', () => {
    expect(shellInvocation('/bin/bash', 'echo hi')).to.deep.equal({
      file: '/bin/sh',
      args: ['-c', 'exec "$0" "$@" 2>&1', '/bin/bash', '-lc', 'echo hi'],
    })
  })
})

describe('command environment', () => {
  it('adds the plain, non-interactive settings and the process tags, and drops the HTTP token', () => {
    const env = commandEnvironment(
      {PATH: '/bin', TERM: 'xterm-256color', COLORTERM: 'truecolor', LANG: 'fr_FR.ISO-8859-1', AGENTEXEC_TOKEN: 'secret'},
      ['owner', 'cmd'],
    )
    expect(env).to.deep.equal({
      PATH: '/bin',
      NO_COLOR: '1',
      TERM: 'dumb',
      LANG: 'C.UTF-8',
      LC_CTYPE: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      COLORTERM: '',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GH_PAGER: 'cat',
      [COMMAND_TAG_VARIABLE]: 'owner,cmd',
    })
  })

  it('keeps the tags of an enclosing server so that it can still find the processes', () => {
    expect(commandEnvironment({[COMMAND_TAG_VARIABLE]: 'outer'}, ['inner'])[COMMAND_TAG_VARIABLE]).to.equal('outer,inner')
  })
})
