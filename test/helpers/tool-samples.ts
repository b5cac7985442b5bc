/**
 * One working call per AgentExec tool, so a suite can check that every tool a server lists
 * answers through a given transport. A tool without a sample fails that check: add one here.
 */
import {expect} from 'chai'
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {TestClient} from './clients.js'

/** Files every sample expects in the workspace. */
export async function prepareSampleWorkspace(workspace: string): Promise<void> {
  await mkdir(path.join(workspace, 'src'), {recursive: true})
  await writeFile(path.join(workspace, 'README.md'), 'hello\n')
}

type Sample = (client: TestClient, tag: string) => Promise<void>

/** Tool name → a call that must succeed; `tag` keeps files of parallel clients apart. */
export const TOOL_SAMPLES: Record<string, Sample> = {
  async list(client) {
    const answer = await client.call('list', {})
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.contain('README.md  6 bytes')
  },
  async read(client) {
    const answer = await client.call('read', {path: 'README.md'})
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.match(/1\D+hello/)
  },
  async search(client) {
    const answer = await client.call('search', {query: 'hello'})
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.contain('README.md:1:hello')
  },
  async edit(client, tag) {
    const answer = await client.call('edit', {path: `created-${tag}.txt`, old_text: '', new_text: 'new file\n'})
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.contain('new file')
  },
  async exec_command(client) {
    const answer = await client.call('exec_command', {cmd: 'echo from-the-shell'})
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.structured?.exit_code).to.equal(0)
    expect(answer.text).to.contain('from-the-shell')
  },
  async write_stdin(client) {
    const started = await client.call('exec_command', {cmd: 'read line; echo "got $line"', yield_time_ms: 250})
    expect(started.structured?.exit_code, started.text).to.equal('running')
    const answer = await client.call('write_stdin', {session_id: started.structured?.session_id, chars: 'ping\n', yield_time_ms: 5000})
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.contain('got ping')
  },
}

/** Calls the sample of every tool the client lists; fails naming any tool without a sample. */
export async function callEveryListedTool(client: TestClient, tag: string): Promise<string[]> {
  const names = (await client.listTools()).map((tool) => tool.name)
  const missing = names.filter((name) => !(name in TOOL_SAMPLES))
  expect(missing, 'tools without a sample call in test/helpers/tool-samples.ts').to.deep.equal([])
  for (const name of names) await (TOOL_SAMPLES[name] as Sample)(client, tag)
  return names
}
