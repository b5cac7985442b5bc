import {expect} from 'chai'
import {mkdir, mkdtemp, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT, connectHttp} from '../helpers/clients.js'
import {startHttpServer} from '../helpers/http-server.js'

// A host application that counts its own starts in a file, so a worker that re-ran it would show.
const APP_SOURCE = `
import {appendFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {createAgentExec} from '@agentorg/ak'

appendFileSync(process.env.APP_STARTS_FILE, 'started\\n')
const agentExec = await createAgentExec({workspace: process.env.APP_WORKSPACE})
const server = createServer((req, res) => void agentExec.handle(req, res))
server.listen(0, '127.0.0.1', () => {
  process.stderr.write('listening on http://127.0.0.1:' + server.address().port + '/agent\\n')
})
process.once('SIGTERM', async () => {
  await agentExec.close()
  server.closeAllConnections()
  server.close()
})
`

describe('createAgentExec bundled with esbuild into a host application\'s single file', () => {
  let scratch: string

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'ak-host-app-'))
  })

  after(() => rm(scratch, {recursive: true, force: true}))

  // Two common ways to bundle: minified, and unminified keeping function names (esbuild then wraps
  // functions in a helper that exists only in the bundle); and a host that adds no shims for
  // bundled CommonJS code (no `require` in its ESM output).
  const ways = [
    {minify: true, keepNames: false, shims: true},
    {minify: false, keepNames: true, shims: true},
    {minify: true, keepNames: false, shims: false},
  ]
  for (const {shims, ...options} of ways) {
    it(`searches on worker threads without re-running the application (${JSON.stringify(options)}${shims ? ', require shim' : ', no shims'})`, async () => {
      const source = path.join(scratch, 'src')
      await mkdir(path.join(source, 'node_modules', '@agentorg'), {recursive: true})
      await symlink(REPO_ROOT, path.join(source, 'node_modules', '@agentorg', 'ak')).catch(() => undefined)
      await writeFile(path.join(source, 'app.mjs'), APP_SOURCE)
      const {build} = await import('esbuild')
      const out = path.join(scratch, `out-${options.minify ? 'min' : 'names'}${shims ? '' : '-no-shims'}`, 'app.mjs')
      await build({
        entryPoints: [path.join(source, 'app.mjs')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node22',
        ...options,
        outfile: out,
        // The application's own shims for bundled CommonJS code, as many hosts add them.
        ...(shims ? {banner: {js: "import {createRequire as __cr} from 'node:module'; const require = __cr(import.meta.url);"}} : {}),
        logLevel: 'error',
      })
      const workspace = path.join(scratch, 'workspace')
      await mkdir(workspace, {recursive: true})
      await writeFile(path.join(workspace, 'notes.txt'), 'alpha\nneedle here\nomega\n')
      const startsFile = path.join(path.dirname(out), 'starts.txt')
      const app = await startHttpServer(out, [], {cwd: path.dirname(out), env: {APP_STARTS_FILE: startsFile, APP_WORKSPACE: workspace}})
      try {
        const client = await connectHttp('v2 (2026-07-28)', app.url)
        const answer = await client.call('search', {query: 'needle'})
        await client.close()
        expect(answer.isError, answer.text).to.equal(false)
        expect(answer.text).to.contain('notes.txt:2:needle here')
        expect(await readFile(startsFile, 'utf8')).to.equal('started\n')
      } finally {
        expect(await app.stop('SIGTERM'), app.stderr()).to.equal(0)
      }
    })
  }
})
