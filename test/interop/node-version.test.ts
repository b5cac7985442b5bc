import {expect} from 'chai'
import {spawn, spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

import {STANDALONE_SERVER} from '../helpers/bundle.js'
import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'
import {expectRefusal, olderSystemNode} from '../helpers/older-node.js'

const BUNDLE = path.join(REPO_ROOT, 'dist', 'ak.mjs')
const LIBRARY = path.join(REPO_ROOT, 'dist', 'exec.js')

/** The pids whose parent is `pid`, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] === String(pid)
      } catch {
        return false // ended meanwhile
      }
    })
    .map(Number)
}

describe('start-up on a Node.js older than 22.15', () => {
  let scratch: string
  let pretendOld: string

  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'ak-node-version-'))
    pretendOld = path.join(scratch, 'pretend-node-20.cjs')
    writeFileSync(pretendOld, 'Object.defineProperty(process.versions, "node", {value: "20.20.0"})\n')
  })

  after(() => rmSync(scratch, {recursive: true, force: true}))

  for (const [name, entry] of [['bin/run.js', RUN_JS], ['the one-file bundle', BUNDLE]] as const) {
    it(`${name} exits 1 with one line saying what to install`, () => {
      expectRefusal(spawnSync(process.execPath, ['--require', pretendOld, entry, 'exec', 'serve'], {input: ''}))
    })
  }

  it('the agentexec launcher exits 1 with one line in its own name', () => {
    expectRefusal(spawnSync(process.execPath, ['--require', pretendOld, STANDALONE_SERVER, '--version'], {input: ''}), 'agentexec')
  })

  it('the library entry refuses to load with one line in its own name', () => {
    const importer = `await import(${JSON.stringify(pathToFileURL(LIBRARY).href)}); console.log('loaded')`
    expectRefusal(spawnSync(process.execPath, ['--require', pretendOld, '--input-type=module', '-e', importer], {input: ''}), '@agentorg/exec')
  })

  it("the agentexec launcher and the library entry refuse the machine's own older Node.js the same way", function () {
    const node = olderSystemNode()
    if (!node) {
      console.log('      (skipped: no Node.js older than 22.15 on PATH outside this project)')
      this.skip()
    }
    expectRefusal(spawnSync(node!, [STANDALONE_SERVER, '--version'], {input: ''}), 'agentexec')
    const importer = `import(${JSON.stringify(pathToFileURL(LIBRARY).href)}).then(() => console.log('loaded'))`
    expectRefusal(spawnSync(node!, ['--input-type=module', '-e', importer], {input: ''}), '@agentorg/exec')
  })

  it("refuses the machine's own older Node.js the same way, outside a clone with a private Node.js", function () {
    const node = olderSystemNode()
    if (!node) this.skip()
    const bin = path.join(scratch, 'bin')
    cpSync(path.join(REPO_ROOT, 'bin'), bin, {recursive: true})
    expectRefusal(spawnSync(node!, [path.join(bin, 'run.js'), '--version'], {input: ''}))
  })

  it("runs on the clone's private Node.js when the machine's own older Node.js starts it", function () {
    const node = olderSystemNode()
    if (!node) this.skip()
    const result = spawnSync(node!, [RUN_JS, '--version'], {input: '', encoding: 'utf8'})
    expect(result.stderr).to.equal('')
    expect(result.status).to.equal(0)
    expect(result.stdout).to.match(/^@agentorg\/ak\/\S+ \S+ node-v22\./)
  })

  it('passes the exit code through from the private Node.js', function () {
    const node = olderSystemNode()
    if (!node) this.skip()
    const failed = spawnSync(node!, [RUN_JS, 'exec', 'serve', '--level', 'nonsense'], {input: '', encoding: 'utf8'})
    expect(failed.status).to.equal(2)
    expect(failed.stderr).to.contain('nonsense')
  })

  it('passes SIGTERM on to the private Node.js and ends as it ends', async function () {
    const node = olderSystemNode()
    if (!node || process.platform !== 'linux') this.skip() // the relaunched process is found through /proc
    const launcher = spawn(node!, [RUN_JS, 'exec', 'serve', '--workspace', scratch, '--http', '127.0.0.1:0'], {
      env: {...process.env, AGENTEXEC_TOKEN: 'test-token'},
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    await new Promise<void>((resolve) => {
      launcher.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        if (stderr.includes('listening on')) resolve()
      })
    })
    const relaunched = childrenOf(launcher.pid!)
    expect(relaunched).to.have.length(1)
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => launcher.on('exit', (code, signal) => resolve([code, signal])))
    launcher.kill('SIGTERM')
    expect(await ended, `stderr:\n${stderr}`).to.deep.equal([0, null])
    expect(() => process.kill(relaunched[0]!, 0)).to.throw()
  })
})
