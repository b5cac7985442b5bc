import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import path from 'node:path'

import {AGENT_DEPTH_ENV} from '../../../src/codex/agent-depth.js'
import {AGENT_FILE_MAX_BYTES, CODEX_CONFIG_MAX_BYTES, GIT_POINTER_FILE_MAX_BYTES, MAX_AGENT_DEPTH, PROC_ENVIRON_MAX_BYTES} from '../../../src/codex/limits.js'
import {REPO_ROOT} from '../../helpers/clients.js'

describe('docs/agent-runtime.md quotes the limits of the files the runtime reads and of its depth', () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'agent-runtime.md'), 'utf8').replaceAll(/\s+/g, ' ')

  it('the size limit of every file it opens because of its name', () => {
    expect(doc).to.contain(`${AGENT_FILE_MAX_BYTES} bytes for an agent file, ${CODEX_CONFIG_MAX_BYTES} bytes for a Codex config, ${GIT_POINTER_FILE_MAX_BYTES} bytes for a \`.git\` file`)
    expect(doc).to.contain(`\`/proc/<pid>/environ\`, at most ${PROC_ENVIRON_MAX_BYTES} bytes each`)
  })

  it('the depth and the variable that marks it', () => {
    expect(doc).to.contain(`the depth is at most ${MAX_AGENT_DEPTH}, as Codex's own \`agents.max_depth\``)
    expect(doc).to.contain(`gets \`${AGENT_DEPTH_ENV}=1\` in its environment`)
    expect(doc).to.contain(`(at most ${MAX_AGENT_DEPTH} level, as Codex's agents.max_depth)`)
  })
})
