/** A write to stdout that fails (stdout on a full disk: /dev/full) ends every entry point with one clear line and exit 1. */
import {expect} from 'chai'
import {spawn} from 'node:child_process'
import {existsSync, openSync, closeSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {BUNDLE, STANDALONE_SERVER as AGENTEXEC} from '../helpers/bundle.js'
import {RUN_JS} from '../helpers/clients.js'

const INITIALIZE = `${JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 't', version: '1'}}})}\n`

/** Runs `node <args>` with stdout on /dev/full and the initialize request on stdin; resolves its exit code and stderr. */
function runOnFullDisk(args: string[], cwd: string): Promise<{code: number | null; stderr: string}> {
  const full = openSync('/dev/full', 'w')
  const child = spawn(process.execPath, args, {cwd, stdio: ['pipe', full, 'pipe']})
  closeSync(full)
  let stderr = ''
  const {stdin, stderr: errors} = child
  if (!stdin || !errors) throw new Error('spawned without pipes')
  errors.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  stdin.on('error', () => undefined)
  stdin.write(INITIALIZE)
  const timer = setTimeout(() => stdin.end(), 10_000) // a server that did not stop on its own ends with stdin
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stderr})
    }),
  )
}

describe('stdout on a full disk', function () {
  let dir: string
  before(async function () {
    if (!existsSync('/dev/full')) {
      console.log('      (skipped: this system has no /dev/full)')
      this.skip()
    }
    dir = await mkdtemp(path.join(tmpdir(), 'ak-full-'))
  })
  after(() => (dir ? rm(dir, {recursive: true, force: true}) : undefined))

  const servers: Array<[string, () => string[]]> = [
    ['ak exec serve', () => [RUN_JS, 'exec', 'serve', '--workspace', dir]],
    ['ak exec serve from the one-file bundle', () => [BUNDLE, 'exec', 'serve', '--workspace', dir]],
    ['dist/agentexec.js', () => [AGENTEXEC, '--workspace', dir]],
    ['ak codex-agent-runtime serve', () => [RUN_JS, 'codex-agent-runtime', 'serve', '--codex-home', path.join(dir, 'home'), '--plugin-root', path.join(dir, 'plugins')]],
  ]
  for (const [name, args] of servers) {
    it(`${name}: ends its connection with one line saying stdout failed, and exit 1`, async () => {
      const {code, stderr} = await runOnFullDisk(args(), dir)
      expect(code, stderr).to.equal(1)
      expect(stderr).not.to.match(/^\s+at /m)
      expect(stderr.trimEnd().split('\n').at(-1)).to.equal(
        "Error: The MCP stdio transport failed (ENOSPC: no space left on device, write); the connection is closed. Check that the client keeps reading the server's output (when stdout goes to a file, that its disk has room), and restart the server.",
      )
    })
  }

  for (const [name, args] of [
    ['ak exec tools', () => [RUN_JS, 'exec', 'tools']],
    ['ak codex-agent-runtime serve --list-only from the one-file bundle', () => [BUNDLE, 'codex-agent-runtime', 'serve', '--list-only', '--codex-home', path.join(dir, 'home')]],
  ] as Array<[string, () => string[]]>) {
    it(`${name}: one line on stderr and exit 1`, async () => {
      const {code, stderr} = await runOnFullDisk(args(), dir)
      expect(code, stderr).to.equal(1)
      expect(stderr).to.equal('ak: cannot write to stdout (ENOSPC: no space left on device, write); stopping.\n')
    })
  }
})
