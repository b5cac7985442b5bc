/**
 * The depth bound through the real Codex CLI (the pinned `@openai/codex`) and a mock model
 * provider: the model of a dispatched run calls an agent tool of a runtime that a Codex config
 * entry starts under a spelling ak cannot recognise; that runtime refuses, and no second run starts.
 */
import {expect} from 'chai'
import {existsSync} from 'node:fs'
import path from 'node:path'

import {REPO_ROOT, RUN_JS, connectStdio} from '../helpers/clients.js'
import {tempDir, writeTree} from '../helpers/codex-fixtures.js'
import {type MockResponsesProvider, findTool, functionCallOutputs, startMockResponsesProvider} from '../helpers/mock-responses-provider.js'

const CODEX_BIN_DIR = path.join(REPO_ROOT, 'node_modules', '.bin')

describe('agents do not start agents, through the real Codex CLI', function () {
  this.timeout(180_000)
  let provider: MockResponsesProvider
  let remove: () => Promise<void>

  after(async () => {
    await provider?.close()
    await remove?.()
  })

  it('a runtime started inside the dispatched run by a Python one-liner answers the model with a tool error; one run only', async () => {
    if (!existsSync(path.join(CODEX_BIN_DIR, 'codex'))) throw new Error('@openai/codex is not installed: run npm ci')
    let callsOffered = 0
    provider = await startMockResponsesProvider((request) => {
      const outputs = [...functionCallOutputs(request).values()]
      if (outputs.length > 0) return [{type: 'message', text: `nested said: ${outputs.join(' | ')}`}]
      const tool = findTool(request, 'nested', 'agent_helper')
      if (!tool) return [{type: 'message', text: 'no agent tool offered'}]
      callsOffered += 1
      return [{type: 'function_call', name: tool.name, ...(tool.namespace ? {namespace: tool.namespace} : {}), arguments: {prompt: 'go deeper'}}]
    })
    let dir: string
    ;({dir, remove} = await tempDir('ak-real-depth-'))
    const codexHome = path.join(dir, 'codex-home')
    const plugins = path.join(dir, 'plugins')
    const execv = `import os, sys; os.execv(sys.argv[1], [sys.argv[1], sys.argv[2], 'codex-agent' + '-runtime', 'serve', '--codex-home', sys.argv[3], '--plugin-root', sys.argv[4]])`
    await writeTree(dir, {
      'codex-home/config.toml': [
        'model_provider = "mock"',
        '',
        '[model_providers.mock]',
        'name = "mock"',
        `base_url = "${provider.baseUrl}"`,
        'wire_api = "responses"',
        '',
        '[mcp_servers.nested]',
        'command = "python3"',
        `args = ${JSON.stringify(['-c', execv, process.execPath, RUN_JS, codexHome, plugins])}`,
        'required = true # Codex waits for it, so its tools are offered to the model',
        'default_tools_approval_mode = "approve"',
        '',
      ].join('\n'),
      'codex-home/agents/helper.toml': 'description = "Helps."\nmodel = "mock-model-7"\n',
      'work/README.md': 'hello\n',
    })
    const client = await connectStdio('v1 (2025 era)', ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', plugins], {
      cwd: path.join(dir, 'work'),
      env: {PATH: `${CODEX_BIN_DIR}${path.delimiter}${process.env.PATH}`},
    })
    let answer
    try {
      answer = await client.call('agent_helper', {prompt: 'Help.'})
    } finally {
      await client.close()
    }
    expect(answer.isError, answer.text).to.equal(false)
    expect(callsOffered, 'the model called the nested agent tool').to.equal(1)
    // "in its environment": Codex passed the variable to the server through the entry's env override.
    expect(answer.text).to.match(/^nested said: [\s\S]*agent_helper cannot run here: this agent runtime was started inside an agent run that ak dispatched \(AK_CODEX_AGENT_DEPTH=1 in its environment\)/)
    // The dispatched run's two turns (the call, then the answer); a nested run would have asked the model again.
    expect(provider.requests).to.have.length(2)
    expect(provider.errors).to.deep.equal([])
  })
})
