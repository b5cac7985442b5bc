import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import path from 'node:path'

import {CODEX_APPROVAL_LINES} from '../../../src/launch/codex-tool-approval.js'
import {REPO_ROOT} from '../../helpers/clients.js'

describe('the approval lines ak writes for Codex', () => {
  it('are one comment line, then the key, and the docs show them word for word', () => {
    expect(CODEX_APPROVAL_LINES).to.have.length(2)
    expect(CODEX_APPROVAL_LINES[0]).to.match(/^# [^\n]+$/)
    expect(CODEX_APPROVAL_LINES[1]).to.equal('default_tools_approval_mode = "approve"')
    for (const page of ['docs/http.md', 'docs/agent-runtime.md']) {
      expect(readFileSync(path.join(REPO_ROOT, page), 'utf8'), page).to.contain(`\n${CODEX_APPROVAL_LINES.join('\n')}\n`)
    }
  })
})
