import {expect} from 'chai'
import {randomBytes} from 'node:crypto'
import {readdirSync} from 'node:fs'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {type AddressInfo, type Server, createServer} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {AK_VERSION} from '../../src/version.js'
import {type LoneBundle, STANDALONE_BUNDLE, STANDALONE_SERVER, copyBundleAlone} from '../helpers/bundle.js'
import {CLIENT_LINES, RUN_JS, connectHttp, connectStdio} from '../helpers/clients.js'
import {runToExit, startHttpServer} from '../helpers/http-server.js'

/** A loopback port this test holds open, so that a server cannot listen on it. */
let takenPort = 0

/** Arguments both `ak exec serve` and `agentexec` refuse, or serve with (stdin is empty, so a serve ends at once). */
const COMMAND_LINES: Array<{args: (workspace: string) => string[]; env?: Record<string, string | undefined>; code: number; why: string; notSaid?: string}> = [
  {why: 'an unknown level', args: () => ['--level', 'admin'], code: 2},
  {why: 'a mistyped flag', args: () => ['--worksapce', '.'], code: 2},
  {why: 'a flag without its value', args: () => ['--workspace'], code: 2},
  {why: 'a missing workspace', args: (ws) => ['--workspace', path.join(ws, 'absent')], code: 2},
  {why: 'a workspace that is a file', args: (ws) => ['--workspace', path.join(ws, 'file.txt')], code: 2},
  {why: 'an empty workspace', args: () => ['--workspace='], code: 2},
  {why: 'a positional argument', args: () => ['extra'], code: 2},
  {why: 'a non-loopback HTTP address', args: (ws) => ['-w', ws, '--http', '0.0.0.0:8123'], code: 2},
  {why: 'a malformed HTTP address', args: (ws) => ['-w', ws, '--http', 'localhost'], code: 2},
  {why: 'HTTP without a token', args: (ws) => ['-w', ws, '--http', '127.0.0.1:0'], env: {AGENTEXEC_TOKEN: undefined}, code: 2},
  {why: 'a port already taken', args: (ws) => ['-w', ws, '--http', `127.0.0.1:${takenPort}`], env: {AGENTEXEC_TOKEN: 't'}, code: 1, notSaid: 'serving'},
  {why: 'stdin that closes at once', args: (ws) => ['-w', ws, '-l', 'terminal'], code: 0},
  {why: 'stdin that closes at once, quietly', args: (ws) => ['--workspace', ws, '--quiet'], code: 0},
]

/** A line of `ak exec serve` stderr as `agentexec` words it: the same, but for the program's name. */
const asStandalone = (stderr: string) => stderr.replaceAll('"ak exec serve', '"agentexec')

describe('dist/agentexec.js, the standalone server, alone in an empty folder', () => {
  let server: LoneBundle
  let workspace: string
  let holder: Server
  const run = (args: string[], env: Record<string, string | undefined> = {}) => runToExit(server.file, args, {cwd: server.dir, env})

  before(async () => {
    server = copyBundleAlone(STANDALONE_SERVER)
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-standalone-'))
    await writeFile(path.join(workspace, 'file.txt'), 'hello\n')
    holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    takenPort = (holder.address() as AddressInfo).port
  })

  after(async () => {
    holder?.close()
    server?.remove()
    await rm(workspace, {recursive: true, force: true})
  })

  it('holds neither oclif nor the Codex agent runtime', async () => {
    for (const file of [STANDALONE_SERVER, STANDALONE_BUNDLE]) {
      const text = await readFile(file, 'utf8')
      expect(text, file).not.to.contain('node_modules/@oclif/')
      expect(text, file).not.to.contain('dist/codex/')
      expect(text, file).not.to.contain('createCodexAgentRuntime')
    }
  })

  it('is one file: copied alone, it serves a search to a real client, with its code cache', async () => {
    expect(readdirSync(server.dir)).to.deep.equal([path.basename(STANDALONE_SERVER)])
    const cacheHome = await mkdtemp(path.join(tmpdir(), 'ak-standalone-cache-'))
    try {
      const client = await connectStdio(CLIENT_LINES[1], ['--workspace', workspace], {entry: server.file, cwd: server.dir, env: {XDG_CACHE_HOME: cacheHome}})
      try {
        const answer = await client.call('search', {query: 'hello'})
        expect(answer.isError, answer.text).to.equal(false)
        expect(answer.text).to.contain('file.txt:1:hello')
        // A start that runs SAVE_AFTER_MS (2 s) keeps its compiled code for the next.
        await sleep(3000)
      } finally {
        await client.close()
      }
      expect(readdirSync(path.join(cacheHome, 'ak')).filter((name) => name.startsWith('agentexec.js.') && name.endsWith('.v8cache'))).to.have.length(1)
    } finally {
      await rm(cacheHome, {recursive: true, force: true})
    }
  })

  it('says in one line, exit 1, that a copy cut short is damaged, never with a stack trace', async () => {
    const text = await readFile(server.file, 'utf8')
    const cut = path.join(server.dir, 'cut-agentexec.js')
    await writeFile(cut, text.slice(0, Math.floor(text.length * 0.9)))
    const result = await runToExit(cut, ['--version'], {cwd: server.dir})
    expect(result.code).to.equal(1)
    expect(result.stdout).to.equal('')
    expect(result.stderr).to.match(/^agentexec: cut-agentexec\.js is damaged: .* Install it again .*\n$/)
    expect(result.stderr.split('\n')).to.have.length(2)
    await rm(cut)
  })

  it('prints its version and exits 0', async () => {
    const result = await run(['--version'])
    expect(result.code).to.equal(0)
    expect(result.stdout).to.equal(`agentexec ${AK_VERSION}\n`)
  })

  it('prints help naming every option and the exit codes, and exits 0', async () => {
    const result = await run(['--help'])
    expect(result.code).to.equal(0)
    for (const flag of ['--workspace', '--level', '--http', '--quiet', '--help', '--version']) expect(result.stdout).to.contain(flag)
    expect(result.stdout).to.contain('Exit codes: 0')
    expect(result.stdout).not.to.contain('session-idle-ms')
    expect(result.stderr).to.equal('')
  })

  for (const line of COMMAND_LINES) {
    it(`exits ${line.code} with the same stderr as ak exec serve for ${line.why}`, async function () {
      const args = line.args(workspace)
      const [standalone, ak] = await Promise.all([run(args, line.env), runToExit(RUN_JS, ['exec', 'serve', ...args], {cwd: workspace, env: line.env})])
      expect(ak.code, ak.stderr).to.equal(line.code)
      expect(standalone.code, standalone.stderr).to.equal(line.code)
      expect(standalone.stdout).to.equal('')
      expect(standalone.stderr).to.equal(asStandalone(ak.stderr))
      if (line.code !== 0) expect(standalone.stderr).to.match(/(^|\n)Error: \S/)
      // A server that never served does not say it is serving.
      if (line.notSaid) expect(ak.stderr).not.to.contain(line.notSaid)
    })
  }

  it('logs the workspace and level on stderr unless --quiet', async () => {
    const loud = await run(['--workspace', workspace, '--level', 'files'])
    expect(loud.stderr).to.contain(`ak exec: serving ${workspace} at level files over stdio`)
    const quiet = await run(['-w', workspace, '-q'])
    expect(quiet.stderr).to.equal('')
  })

  for (const line of CLIENT_LINES) {
    it(`serves MCP over stdio to client ${line}, with the tools of its level`, async () => {
      const client = await connectStdio(line, ['--workspace', workspace, '--level', 'files'], {entry: server.file, cwd: server.dir})
      try {
        expect((await client.listTools()).map((tool) => tool.name)).to.deep.equal(['read', 'list', 'search', 'edit'])
        const answer = await client.call('read', {path: 'file.txt'})
        expect(answer.isError, answer.text).to.equal(false)
        expect(answer.text).to.contain('hello')
        expect(client.stderr()).to.match(/read "file.txt" \d+ms ok/)
      } finally {
        await client.close()
      }
    })

    it(`serves MCP over Streamable HTTP with the bearer token to client ${line}, until SIGTERM`, async () => {
      const token = randomBytes(16).toString('hex')
      const http = await startHttpServer(server.file, ['--workspace', workspace, '--http', '127.0.0.1:0', '--level', 'terminal'], {
        env: {AGENTEXEC_TOKEN: token},
        cwd: server.dir,
      })
      try {
        const client = await connectHttp(line, http.url, {token})
        try {
          const answer = await client.call('exec_command', {cmd: 'echo from-http'})
          expect(answer.isError, answer.text).to.equal(false)
          expect(answer.text).to.contain('from-http')
        } finally {
          await client.close()
        }
      } finally {
        expect(await http.stop('SIGTERM')).to.equal(0)
      }
    })
  }
})
