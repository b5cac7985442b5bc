import {expect} from 'chai'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'
import {startStdioRelay} from '../helpers/stdio-relay.js'

describe('tool input errors name the field and say what to pass', () => {
  let workspace: string
  let client: TestClient

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-input-errors-'))
    client = await connectStdio('v1 (2025 era)', ['exec', 'serve', '--level', 'terminal', '--workspace', workspace])
  })
  after(async () => {
    await client?.close()
    await rm(workspace, {recursive: true, force: true})
  })

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['exec_command', {cmd: ''}, /cmd must not be empty: the shell command to run/],
    ['exec_command', {cmd: 123}, /cmd must be a string: the shell command to run/],
    ['exec_command', {cmd: 'true', yield_time_ms: 'soon'}, /yield_time_ms must be a number: how long to wait/],
    ['exec_command', {cmd: 'true', workdir: 1}, /workdir must be a string: the folder/],
    ['write_stdin', {session_id: true}, /session_id must be a string or a number: the session_id an earlier/],
    ['write_stdin', {session_id: '1', max_output_tokens: 'many'}, /max_output_tokens must be a number: the budget/],
    ['search', {query: ''}, /query must not be empty: the text/],
    ['search', {query: 'a', max_results: 0}, /max_results must be 1 or more: how many matching lines/],
    ['search', {query: 'a', regex: 'yes'}, /regex must be true or false/],
    ['search', {query: 'a', glob: 5}, /glob must be a glob pattern or a list/],
    ['read', {path: 'a', offset: 1e300}, /offset must be at most \d+: the first line to show/],
    ['list', {path: 7}, /path must be a string: the folder to list/],
    ['edit', {path: '', old_text: '', new_text: 'x'}, /path must not be empty: the file to edit/],
  ]
  for (const [tool, args, message] of cases) {
    it(`answers ${tool} ${JSON.stringify(args)} with a message naming the field and the fix`, async () => {
      const answer = await client.call(tool, args)
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.match(message)
      expect(answer.text).not.to.match(/Too small|Invalid input|expected (string|number)/)
    })
  }

  // JSON.parse keeps "__proto__" as a member, as a client sending these bytes does.
  for (const [name, json] of [
    ['__proto__', '{"path": ".", "__proto__": {"limit": 1}}'],
    ['constructor', '{"path": ".", "constructor": {}}'],
    ['toString', '{"path": ".", "toString": "x"}'],
  ] as const) {
    it(`refuses an argument named ${name} like any other unknown argument`, async () => {
      const answer = await client.call('list', JSON.parse(json) as Record<string, unknown>)
      expect(answer).to.deep.include({isError: true, text: `list has no argument "${name}", so the call did nothing. Its arguments are: path, offset, limit.`})
    })
  }

  for (const [level, opening] of [['read', /^Read-only access to files \(read, list, search\), confined/], ['terminal', /terminal to run commands in/]] as const) {
    it(`says in its instructions what level ${level} offers`, async () => {
      const relay = await startStdioRelay(['exec', 'serve', '--level', level, '--workspace', workspace], {cwd: workspace})
      try {
        relay.send({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}}})
        const {result} = (await relay.response(1)) as {result: {instructions: string}}
        expect(result.instructions).to.match(opening)
      } finally {
        await relay.remove()
      }
    })
  }
})

for (const line of CLIENT_LINES) {
  describe(`tool arguments as models send them (${line})`, () => {
    let workspace: string
    let client: TestClient

    before(async () => {
      workspace = await mkdtemp(path.join(tmpdir(), 'ak-tool-args-'))
      client = await connectStdio(line, ['exec', 'serve', '--level', 'terminal', '--workspace', workspace])
    })
    after(async () => {
      await client?.close()
      await rm(workspace, {recursive: true, force: true})
    })

    it('refuses an edit with an argument edit does not define, and leaves the file alone', async () => {
      await writeFile(path.join(workspace, 'f.txt'), 'line1\nline2\n')
      const answer = await client.call('edit', {path: 'f.txt', old_text: 'line2', new_text: 'CHANGED', dryRun: true})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.match(/^edit has no argument "dryRun", so the call did nothing\. Its arguments are: path, old_text, new_text, replace_all, patch\./)
      expect(await readFile(path.join(workspace, 'f.txt'), 'utf8')).to.equal('line1\nline2\n')
    })

    it('refuses read with tail, pointing to a negative offset', async () => {
      const answer = await client.call('read', {path: 'f.txt', tail: 2})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.contain('Its arguments are: path, offset, limit.')
      expect(answer.text).to.contain('negative offset')
    })

    it('refuses list with depth or recursive, pointing to search for files at any depth', async () => {
      for (const name of ['depth', 'recursive']) {
        const answer = await client.call('list', {path: '.', [name]: name === 'depth' ? 2 : true})
        expect(answer.isError, name).to.equal(true)
        expect(answer.text).to.contain('Its arguments are: path, offset, limit.')
        expect(answer.text).to.contain('use search with a glob (and no query)')
      }
    })

    it('accepts whole numbers and booleans sent as strings', async () => {
      await writeFile(path.join(workspace, 'n.txt'), 'a\nb\nc\nd\ne\nf\ng\n')
      const answer = await client.call('read', {path: 'n.txt', offset: '5', limit: '2'})
      expect(answer.isError).to.equal(false)
      expect(answer.text.split('\n').slice(0, 2)).to.deep.equal(['     5\te', '     6\tf'])
      const search = await client.call('search', {query: 'E', path: 'n.txt', case_sensitive: 'false', max_results: '5'})
      expect(search.text.split('\n')[0]).to.equal('n.txt:5:e')
    })

    it('puts each wrong field on its own line', async () => {
      const answer = await client.call('read', {path: 'n.txt', offset: 'x', limit: 'y'})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.match(/offset must be a number: the first line to show[^\n]*\.\nlimit must be a number/)
    })

    it('runs exec_command with Codex\'s tty, shell and login, saying once that they had no effect', async () => {
      const answer = await client.call('exec_command', {cmd: 'echo hi', tty: true, shell: '/bin/bash', login: true})
      expect(answer.isError).to.equal(false)
      // Codex shows its model only structuredContent, so the note is the first line of its text field.
      const text = answer.structured?.text as string
      expect(answer.structured).to.include({exit_code: 0})
      expect(text).to.match(/^\[Note: tty, shell, login had no effect \(tty: commands run over pipes, never in a terminal; shell: [^\n]*\)\.\]\nhi\n$/)
      expect(answer.text.match(/had no effect/g)).to.have.length(1)
      expect(answer.text).to.match(/\ntext:\n\[Note: tty, shell, login had no effect/)
      const plain = await client.call('exec_command', {cmd: 'echo hi'})
      expect(plain.text).not.to.contain('had no effect')
    })
  })
}
