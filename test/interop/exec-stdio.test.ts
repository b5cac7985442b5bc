import {expect} from 'chai'
import {mkdtemp, mkdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CLIENT_LINES, MODERN_PROTOCOL_VERSION, type TestClient, connectStdio} from '../helpers/clients.js'

for (const line of CLIENT_LINES) {
  describe(`ak exec serve over stdio, client ${line}`, () => {
    let workspace: string
    let client: TestClient

    before(async () => {
      workspace = await mkdtemp(path.join(tmpdir(), 'ak-stdio-'))
      await mkdir(path.join(workspace, 'src'))
      await writeFile(path.join(workspace, 'README.md'), 'hello\n')
      client = await connectStdio(line, ['exec', 'serve', '--workspace', workspace])
    })

    after(async () => {
      await client?.close()
      await rm(workspace, {recursive: true, force: true})
    })

    it('speaks the protocol era of the client line', () => {
      if (line.startsWith('v2')) expect(client.protocolVersion).to.equal(MODERN_PROTOCOL_VERSION)
      else expect(client.protocolVersion).to.match(/^2025-/)
    })

    it('lists the read-level tools by default', async () => {
      const names = (await client.listTools()).map((tool) => tool.name)
      expect(names).to.include('list')
      expect(names).not.to.include('edit')
      expect(names).not.to.include('exec_command')
    })

    it('lists the workspace root with folders marked and sizes in bytes', async () => {
      const answer = await client.call('list', {})
      expect(answer.isError).to.equal(false)
      expect(answer.text.split('\n').slice(1)).to.deep.equal(['README.md  6 bytes', 'src/'])
    })

    it('refuses a path outside the workspace as a tool error and keeps serving', async () => {
      const answer = await client.call('list', {path: '..'})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.contain('outside the workspace')
      expect((await client.call('list', {path: 'src'})).isError).to.equal(false)
    })

    it('answers a wrongly typed argument with a tool error', async () => {
      const answer = await client.call('list', {path: 42})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.match(/path/)
    })

    it('logs one line per tool call on stderr', async () => {
      await client.call('list', {path: 'src'})
      expect(client.stderr()).to.match(/list "src" \d+ms ok/)
    })

    it('writes 64 large answers at once without piling up listeners on stdout', async function () {
      this.timeout(120_000)
      await writeFile(path.join(workspace, 'big.txt'), `${'x'.repeat(200)}\n`.repeat(2000))
      const answers = await Promise.all(Array.from({length: 64}, () => client.call('read', {path: 'big.txt'})))
      for (const answer of answers) expect(answer.isError, answer.text).to.equal(false)
      expect(client.stderr()).not.to.contain('MaxListenersExceededWarning')
    })
  })
}
