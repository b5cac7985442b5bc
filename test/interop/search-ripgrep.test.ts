import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {promisify} from 'node:util'

import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'

const execFileAsync = promisify(execFile)

/** Files whose lines end in CRLF, start with a BOM or hold characters above U+FFFF. */
const FILES: Record<string, string | Buffer> = {
  'crlf.txt': 'one\r\ntwo\r\nthree 😀\r\n\r\nlast\r\n',
  'lf.txt': 'one\ntwo\nthree 😀\n\nlast\n',
  'mixed.txt': 'one\r\ntwo\nthree\r\nend',
  'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hello\nworld\nhello again\n')]),
  'bom-crlf.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hello\r\none\r\n')]),
  'astral.txt': '😀x😀\nab😀\n𝒳 marks 𝒴\n😀\n',
}

/** Queries run as regexes (same meaning in JavaScript and ripgrep's syntax) and as exact text. */
const REGEXES = ['^one$', 'o$', '^hello', 'e$', '^$', '😀$', '^😀', 'b😀', '^𝒳 marks 𝒴$', '^(one|two)$', 'hello$']
const LITERALS = ['one', 'hello', '😀x', '𝒴', 'last']

/** ripgrep's matching lines as `path:line:text`, its line break (and a CR before it) dropped. */
async function ripgrep(workspace: string, query: string, isRegex: boolean): Promise<string[]> {
  const args = ['--crlf', '--line-number', '--no-heading', '--with-filename', '--color', 'never', ...(isRegex ? [] : ['--fixed-strings']), '-e', query, '.']
  try {
    const {stdout} = await execFileAsync('rg', args, {cwd: workspace})
    return stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.replace(/^\.\//, '').replace(/\r$/, ''))
      .sort()
  } catch (error) {
    if ((error as {code?: unknown}).code === 1) return [] // rg exits 1 when nothing matched
    throw error
  }
}

async function hasRipgrep(): Promise<boolean> {
  try {
    await execFileAsync('rg', ['--version'])
    return true
  } catch {
    return false
  }
}

for (const line of CLIENT_LINES) {
  describe(`search agrees with ripgrep on CRLF, BOM and astral-character files, client ${line}`, () => {
    let workspace: string
    let client: TestClient

    before(async function () {
      if (!(await hasRipgrep())) {
        console.warn('    skipped: ripgrep (rg) is not installed; .ci/run installs it with apt-get (Debian package "ripgrep")')
        this.skip()
      }
      workspace = await mkdtemp(path.join(tmpdir(), 'ak-search-rg-'))
      for (const [name, contents] of Object.entries(FILES)) await writeFile(path.join(workspace, name), contents)
      client = await connectStdio(line, ['exec', 'serve', '--workspace', workspace])
    })

    after(async () => {
      await client?.close()
      if (workspace) await rm(workspace, {recursive: true, force: true})
    })

    async function ak(query: string, isRegex: boolean): Promise<string[]> {
      const answer = await client.call('search', {query, regex: isRegex})
      expect(answer.isError, answer.text).to.equal(false)
      return answer.text
        .split('\n')
        .filter((text) => !text.startsWith('[') && !text.startsWith('No matches'))
        .sort()
    }

    for (const query of REGEXES) {
      it(`finds the lines rg --crlf finds for the regex ${JSON.stringify(query)}, printed the same`, async () => {
        expect(await ak(query, true)).to.deep.equal(await ripgrep(workspace, query, true))
      })
    }
    for (const query of LITERALS) {
      it(`finds the lines rg --crlf finds for the text ${JSON.stringify(query)}, printed the same`, async () => {
        expect(await ak(query, false)).to.deep.equal(await ripgrep(workspace, query, false))
      })
    }

    it('finds a CRLF line with ^…$ and prints line 1 of a BOM file without the BOM', async () => {
      expect(await ak('^one$', true)).to.include.members(['crlf.txt:1:one', 'lf.txt:1:one', 'bom-crlf.txt:2:one'])
      expect(await ak('^hello', true)).to.include('bom.txt:1:hello')
    })
  })
}
