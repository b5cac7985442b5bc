import {expect} from 'chai'
import {mkdir, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {checkClientEntries} from '../../../src/doctor/client-entries-check.js'
import {renderClientConfig} from '../../../src/exec/serving/client-config.js'
import {type DoctorFixture, createDoctorFixture} from '../../helpers/doctor-fixture.js'

describe('doctor: client entries check (Gemini CLI, OpenCode, Cursor, Windsurf, Zed)', function () {
  this.timeout(120_000)
  let fixture: DoctorFixture

  beforeEach(async () => {
    fixture = await createDoctorFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  const environment = () => ({cwd: fixture.project, env: {PATH: fixture.path, HOME: fixture.home}, homeDir: fixture.home})
  const put = async (file: string, text: string) => {
    await mkdir(path.dirname(file), {recursive: true})
    await writeFile(file, text)
  }
  const block = (client: 'gemini' | 'opencode' | 'cursor' | 'windsurf' | 'zed') => renderClientConfig({client, workspace: fixture.project, level: 'files'}).text

  it('is ok when no client config here starts AgentExec, leaving out other servers and HTTP entries', async () => {
    expect((await checkClientEntries(environment())).status).to.equal('ok')
    await put(path.join(fixture.home, '.cursor', 'mcp.json'), JSON.stringify({mcpServers: {other: {command: 'npx', args: ['-y', 'some-server']}, remote: {url: 'http://127.0.0.1:1/mcp'}}}))
    const result = await checkClientEntries(environment())
    expect(result).to.deep.include({status: 'ok', detail: 'no Gemini CLI, OpenCode, Cursor, Windsurf or Zed config here starts AgentExec'})
  })

  it('starts the printed entries of each client, in user and project files, comments and trailing commas allowed', async () => {
    await put(path.join(fixture.project, '.gemini', 'settings.json'), block('gemini'))
    await put(path.join(fixture.home, '.config', 'opencode', 'opencode.jsonc'), `// mine\n${block('opencode').trimEnd().replace(/\}$/, ',}')}`)
    await put(path.join(fixture.home, '.codeium', 'windsurf', 'mcp_config.json'), block('windsurf'))
    await put(path.join(fixture.project, '.zed', 'settings.json'), `{\n  // Zed settings\n  "theme": "One Dark",\n${block('zed').trim().slice(1, -1)},\n}\n`)
    const result = await checkClientEntries(environment())
    expect(result.status, result.detail).to.equal('ok')
    for (const client of ['gemini', 'opencode', 'windsurf', 'zed']) expect(result.detail).to.contain(`${client} "ak-exec" in`)
    expect(result.detail).to.match(/each starts and lists its tools$/)
  })

  it('fails for an entry that does not start, with its error and how to see it whole', async () => {
    const printed = JSON.parse(block('cursor')) as {mcpServers: Record<string, {command: string; args: string[]}>}
    const entry = printed.mcpServers['ak-exec']!
    entry.args = entry.args.map((arg) => (arg === fixture.project ? path.join(fixture.project, 'missing') : arg))
    await put(path.join(fixture.project, '.cursor', 'mcp.json'), JSON.stringify(printed))
    const result = await checkClientEntries(environment())
    expect(result.status).to.equal('fail')
    expect(result.detail).to.contain(`cursor "ak-exec" in ${path.join(fixture.project, '.cursor', 'mcp.json')} does not start: `).and.contain('does not exist')
    expect(result.fix).to.match(/^run .* to see the whole error, or replace the entry with the block "ak exec config --client cursor" prints$/)
  })

  it('warns for a Gemini CLI entry without "trust": true, and for a file that cannot be parsed', async () => {
    const printed = JSON.parse(block('gemini')) as {mcpServers: Record<string, Record<string, unknown>>}
    delete printed.mcpServers['ak-exec']!.trust
    await put(path.join(fixture.home, '.gemini', 'settings.json'), JSON.stringify(printed))
    await put(path.join(fixture.project, 'opencode.json'), '{"mcp": {')
    const result = await checkClientEntries(environment())
    expect(result.status).to.equal('warn')
    expect(result.detail).to.contain('has no "trust": true, so gemini -p offers the model none of its tools')
    expect(result.notes?.[0]).to.contain(`${path.join(fixture.project, 'opencode.json')} cannot be parsed`)
    expect(result.fix).to.contain('"trust": true')
  })
})
