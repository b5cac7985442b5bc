import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {mkdtemp, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {levelIncludes} from '../../src/exec/level.js'
import {EXEC_TOOLS} from '../../src/exec/tools/index.js'
import {RUN_JS} from '../helpers/clients.js'

/**
 * Cursor, Windsurf and Zed cannot run here: the blocks `ak exec config` prints for them parse as
 * JSON, hold the server under the key and in the entry shape each client documents (Cursor's and
 * Windsurf's `mcpServers` with `command` and `args`; Zed's `context_servers` with `source:
 * "custom"`, `command`, `args` and `env`), and the command each names starts ak, which lists its
 * tools to an MCP client started the way these clients start servers: that command and args, from
 * another folder, with a short environment.
 */
const SHAPES = {
  cursor: {key: 'mcpServers', fields: ['args', 'command']},
  windsurf: {key: 'mcpServers', fields: ['args', 'command']},
  zed: {key: 'context_servers', fields: ['args', 'command', 'env', 'source']},
} as const

describe('the Cursor, Windsurf and Zed blocks of ak exec config', () => {
  let workspace: string

  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-client-blocks-')))
    await writeFile(path.join(workspace, 'hello.txt'), 'hi')
  })

  after(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  for (const [client, shape] of Object.entries(SHAPES)) {
    it(`prints for ${client} a block of its documented shape whose command starts ak and lists its tools`, async function () {
      this.timeout(60_000)
      const printed = execFileSync(process.execPath, [RUN_JS, 'exec', 'config', '--client', client, '--workspace', workspace, '--level', 'files', '--quiet'], {encoding: 'utf8'})
      const document = JSON.parse(printed) as Record<string, Record<string, Record<string, unknown>>>
      expect(Object.keys(document)).to.deep.equal([shape.key])
      const entry = document[shape.key]!['ak-exec']!
      expect(Object.keys(entry).sort()).to.deep.equal([...shape.fields])
      if (client === 'zed') expect(entry).to.include({source: 'custom'})
      const transport = new StdioClientTransport({
        command: entry.command as string,
        args: entry.args as string[],
        cwd: '/',
        env: {HOME: workspace, PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', ...(entry.env as Record<string, string> | undefined)},
        stderr: 'pipe',
      })
      const mcp = new Client({name: `${client}-like`, version: '1.0.0'})
      await mcp.connect(transport)
      try {
        const {tools} = await mcp.listTools()
        expect(tools.map((tool) => tool.name).sort()).to.deep.equal(EXEC_TOOLS.filter((tool) => levelIncludes('files', tool.level)).map((tool) => tool.name).sort())
        const listed = (await mcp.callTool({name: 'list', arguments: {}})) as {content: Array<{text: string}>}
        expect(listed.content[0]!.text).to.contain('hello.txt')
      } finally {
        await mcp.close()
      }
    })
  }
})
