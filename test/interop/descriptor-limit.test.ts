import {expect} from 'chai'
import {mkdir, mkdtemp, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CLIENT_LINES, type TestClient, type ToolCallAnswer, connectStdio} from '../helpers/clients.js'

/**
 * A server started under a low descriptor limit (`ulimit -n`, which sets both the soft and the
 * hard limit, so Node cannot raise it) by a parent that also left descriptor 250 open without
 * close-on-exec, as a leaky MCP host or a shell's `exec 250<file` does. Every call must be
 * answered, with output or a clear tool error, and the server must go on serving.
 */
function underLimit(limit: number): string[] {
  return ['bash', '-c', `exec 250</dev/null; ulimit -n ${limit}; exec "$@"`, 'bash']
}

/** What no answer may hold: a raw errno code, or a host path (the workspace's own, or any under /tmp). */
function expectNoRawError(answer: ToolCallAnswer, workspace: string): void {
  expect(answer.text).to.not.match(/\bE[A-Z]{3,}\b/)
  expect(answer.text).to.not.contain(workspace)
  expect(answer.text).to.not.match(/(^|[\s"'(])\/(tmp|proc|dev)\//)
}

describe('a server under a low descriptor limit', function () {
  this.timeout(120_000)
  let workspace: string

  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-fd-limit-')))
    await writeFile(path.join(workspace, 'a.txt'), 'hello\n')
    await mkdir(path.join(workspace, 'd1'))
    for (let i = 0; i < 30; i++) await writeFile(path.join(workspace, 'd1', `f${i}.txt`), `needle ${i}\n`)
  })
  after(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  async function serve(limit: number): Promise<TestClient> {
    return connectStdio(CLIENT_LINES[0], ['exec', 'serve', '--workspace', workspace, '--level', 'terminal'], {
      runAs: underLimit(limit),
      env: {AK_EXEC_SHELL_SNAPSHOT: 'on'},
    })
  }

  it('answers a command under ulimit -n 128, then a read', async () => {
    const client = await serve(128)
    try {
      const command = await client.call('exec_command', {cmd: 'echo hi'})
      expect(command.isError, command.text).to.equal(false)
      expect(command.structured).to.include({exit_code: 0, text: 'hi\n'})
      const read = await client.call('read', {path: 'a.txt'})
      expect(read.isError, read.text).to.equal(false)
      expect(read.text).to.contain('hello')
    } finally {
      await client.close()
    }
  })

  it('answers each of ten commands started at once under ulimit -n 96, and goes on serving', async () => {
    const client = await serve(96)
    try {
      const answers = await Promise.all(Array.from({length: 10}, (_, i) => client.call('exec_command', {cmd: `sleep 0.5; echo run${i}`})))
      answers.forEach((answer, i) => {
        expectNoRawError(answer, workspace)
        if (answer.isError) expect(answer.text).to.match(/^The server has too many files open to start the command now\. Retry in a moment\./)
        else expect(answer.structured).to.include({exit_code: 0, text: `run${i}\n`})
      })
      const read = await client.call('read', {path: 'a.txt'})
      expect(read.text).to.contain('hello')
    } finally {
      await client.close()
    }
  })

  it('words every shortage under ulimit -n 40 the same way: what could not be opened, relative, and to retry', async () => {
    const client = await serve(40)
    try {
      const calls: Array<Promise<ToolCallAnswer>> = []
      for (let i = 0; i < 12; i++) {
        calls.push(
          client.call('search', {query: 'needle'}),
          client.call('read', {path: `d1/f${i}.txt`}),
          client.call('list', {path: 'd1'}),
          client.call('exec_command', {cmd: `echo run${i}`}),
        )
      }
      const answers = await Promise.all(calls)
      const shortages = answers.filter((answer) => answer.isError)
      for (const answer of answers) expectNoRawError(answer, workspace)
      for (const answer of shortages) expect(answer.text, answer.text).to.match(/^The server has too many files open to (open "(\.|d1[^"]*)"|open the workspace folder|start a search worker|start the command) now\. Retry in a moment\./)
      expect(shortages.length, 'the limit is low enough to be met').to.be.greaterThan(0)
      expect((await client.call('read', {path: 'a.txt'})).text).to.contain('hello')
    } finally {
      await client.close()
    }
  })
})
