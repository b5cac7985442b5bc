import {expect} from 'chai'
import {spawn} from 'node:child_process'
import type {Writable} from 'node:stream'

import {COMMAND_TAG_VARIABLE, START_GATE_FD, commandEnvironment, resolveShell, shellInvocation} from '../../../../src/exec/terminal/shell.js'

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
      args: ['-c', 'read -r _ <&3; exec "$0" "$@" 2>&1 3<&-', '/bin/bash', '-lc', 'echo hi'],
    })
  })
})

describe('the start gate', () => {
  it('starts the command only once the server ends the gate, and the command does not inherit it', async () => {
    const {file, args} = shellInvocation('/bin/sh', `echo ran; [ -e /dev/fd/${START_GATE_FD} ] && echo gate-inherited || echo gate-closed`)
    const child = spawn(file, args, {env: {PATH: process.env.PATH, HOME: '/nonexistent'}, stdio: ['ignore', 'pipe', 'pipe', 'pipe']})
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const closed = new Promise((resolve) => child.on('close', resolve))
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(output, 'ran before the gate ended').to.equal('')
    expect(child.exitCode).to.equal(null)
    ;(child.stdio[START_GATE_FD] as Writable).end()
    await closed
    expect(output).to.equal('ran\ngate-closed\n')
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
