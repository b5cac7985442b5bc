import {expect} from 'chai'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {connectInProcessExecClient} from '../../../../src/exec/serving/in-process-client.js'
import {LEVELS} from '../../../../src/exec/level.js'
import {createExecRuntime} from '../../../../src/exec/runtime.js'
import {toolsForLevel} from '../../../../src/exec/serving/server.js'
import {toolNotOfferedMessage} from '../../../../src/exec/tooling/tool-not-offered.js'
import {EXEC_TOOLS} from '../../../../src/exec/tools/index.js'
import {Workspace} from '../../../../src/exec/workspace.js'

describe('exec/tool-not-offered', () => {
  it('names the level that offers a tool above the served one, and how to serve it', () => {
    const message = toolNotOfferedMessage('exec_command', 'files', ['read', 'list', 'search', 'edit'])
    expect(message).to.contain('"exec_command" is not offered at level files')
    expect(message).to.contain('ak exec serve --level terminal')
    expect(message).to.contain("createAgentExec({level: 'terminal'})")
    expect(message).to.contain('read, list, search, edit')
  })

  it('names the offered tools for an unknown name', () => {
    expect(toolNotOfferedMessage('nosuch', 'read', ['read', 'list', 'search'])).to.equal(
      'There is no tool "nosuch". This server (level read) offers: read, list, search.',
    )
  })

  // Drives the real server through the official client: this fails if an SDK upgrade moves the
  // tools/call handler answerToolsNotOffered wraps, or starts answering before it.
  describe('through the official MCP client, at every level', () => {
    let dir: string
    before(async () => (dir = await mkdtemp(path.join(tmpdir(), 'ak-not-offered-'))))
    after(async () => rm(dir, {recursive: true, force: true}))

    for (const level of LEVELS) {
      it(`at level ${level}: -32602 with the message for every tool not offered and an unknown name; offered tools still answer`, async () => {
        const runtime = createExecRuntime({workspace: await Workspace.open(dir), level})
        const client = await connectInProcessExecClient(runtime)
        try {
          const offered = toolsForLevel(level).map((tool) => tool.name)
          const notOffered = [...EXEC_TOOLS.filter((tool) => !offered.includes(tool.name)).map((tool) => tool.name), 'nosuch']
          for (const name of notOffered) {
            const error = await client.callTool(name, {}).then(
              () => undefined,
              (caught: unknown) => caught as {code?: unknown; message: string},
            )
            expect(error, name).not.to.equal(undefined)
            expect(error!.code, name).to.equal(-32_602)
            expect(error!.message, name).to.contain(toolNotOfferedMessage(name, level, offered))
          }
          const listed = await client.callTool('list', {path: '.'})
          expect(listed.isError ?? false).to.equal(false)
        } finally {
          await client.close()
          await runtime.close()
        }
      })
    }
  })
})
