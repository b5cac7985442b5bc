import {expect} from 'chai'
import {mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'

// One client line is enough here: what is tested is the server's handling of many or large
// edits, not the protocol (test/interop/exec-files.test.ts covers edit through both lines).
describe(`edit under load through ak exec serve, client ${CLIENT_LINES[0]}`, function () {
  let ws: string
  let client: TestClient

  before(async () => {
    ws = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-edit-load-')))
    client = await connectStdio(CLIENT_LINES[0], ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
  })

  after(async () => {
    await client?.close()
    await rm(ws, {recursive: true, force: true})
  })

  it('applies every one of 40 parallel edits of one file', async () => {
    const count = 40
    const file = path.join(ws, 'tokens.txt')
    await writeFile(file, Array.from({length: count}, (_, i) => `tok${i}\n`).join(''))
    const answers = await Promise.all(
      Array.from({length: count}, (_, i) => client.call('edit', {path: 'tokens.txt', old_text: `tok${i}\n`, new_text: `TOK${i}\n`})),
    )
    const failed = answers.filter((answer) => answer.isError).map((answer) => answer.text)
    expect(failed).to.deep.equal([])
    expect(await readFile(file, 'utf8')).to.equal(Array.from({length: count}, (_, i) => `TOK${i}\n`).join(''))
  })
})
