import {expect} from 'chai'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type LoneBundle, copyBundleAlone} from '../helpers/bundle.js'
import {CLIENT_LINES, REPO_ROOT, connectStdio} from '../helpers/clients.js'
import {runToExit} from '../helpers/http-server.js'

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))
const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8'))

describe('the one-file bundle, alone in an empty folder', () => {
  let bundle: LoneBundle
  let home: string
  const run = (args: string[]) => runToExit(bundle.file, args, {cwd: bundle.dir, env: {HOME: home, XDG_CACHE_HOME: path.join(home, '.cache')}})

  before(() => {
    bundle = copyBundleAlone()
    home = mkdtempSync(path.join(tmpdir(), 'ak-home-'))
  })

  after(() => {
    bundle?.remove()
    rmSync(home, {recursive: true, force: true})
  })

  it('prints the version', async () => {
    const result = await run(['--version'])
    expect(result.code).to.equal(0)
    expect(result.stdout).to.contain(`@agentorg/ak/${pkg.version}`)
  })

  it('holds every command of the manifest, the help command and autocomplete', async () => {
    const ids = [...Object.keys(manifest.commands), 'help', 'autocomplete']
    for (const id of ids) {
      const result = await run([...id.split(':'), '--help'])
      expect(result.code, `${id}: ${result.stderr}`).to.equal(0)
      expect(result.stdout, id).to.match(/USAGE/)
    }
  })

  it('sets up shell completion', async () => {
    const result = await run(['autocomplete', 'script', 'bash'])
    expect(result.code, result.stderr).to.equal(0)
    expect(result.stdout).to.contain('AK_AC_BASH_SETUP_PATH')
  })

  it('suggests the closest command for a mistyped one and exits non-zero', async () => {
    const result = await run(['exec', 'serv'])
    expect(result.code).not.to.equal(0)
    expect(result.stderr).to.contain('exec serve')
  })

  for (const line of CLIENT_LINES) {
    it(`serves MCP over stdio to client ${line}`, async () => {
      const client = await connectStdio(line, ['exec', 'serve', '--workspace', bundle.dir], {entry: bundle.file, cwd: bundle.dir})
      try {
        const answer = await client.call('list', {})
        expect(answer.isError, answer.text).to.equal(false)
        expect(answer.text).to.contain('ak.mjs')
      } finally {
        await client.close()
      }
    })
  }
})
