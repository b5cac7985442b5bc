import {expect} from 'chai'

import {answerText} from '../../../src/codex/agent-call.js'
import type {DispatchOutcome} from '../../../src/codex/dispatch.js'
import {DispatchFailedError} from '../../../src/errors.js'

const agent = {slug: 'reviewer', file: '/agents/reviewer.toml', origin: {kind: 'user' as const}}
const outcome = (fields: Partial<DispatchOutcome>): DispatchOutcome => ({
  exitCode: 0,
  signal: null,
  stdout: '',
  stdoutDroppedBytes: 0,
  stderr: '',
  stderrDroppedBytes: 0,
  ...fields,
})

describe('the answer of an agent call', () => {
  it("is the agent's final message without its last newline", () => {
    expect(answerText(agent, outcome({stdout: 'Two problems.\n'}))).to.equal('Two problems.')
  })

  it('says when output was cut and how much', () => {
    expect(answerText(agent, outcome({stdout: 'x', stdoutDroppedBytes: 99}))).to.equal(
      "x\n[output cut: 99 more bytes of the agent's output were dropped]",
    )
  })

  it('says when the agent printed nothing', () => {
    expect(answerText(agent, outcome({stdout: ''}))).to.equal('(the agent finished without a final message)')
  })

  it('fails with the exit code and the captured stderr, noting a cut beginning', () => {
    const run = () => answerText(agent, outcome({exitCode: 1, stderr: 'quota exceeded\n', stderrDroppedBytes: 10}))
    expect(run).to.throw(DispatchFailedError, 'codex exec for agent_reviewer exited with code 1. Its stderr:\n[the first 10 bytes of stderr were dropped]\nquota exceeded')
  })

  it('fails with the signal when the process was killed', () => {
    expect(() => answerText(agent, outcome({exitCode: null, signal: 'SIGKILL'}))).to.throw(DispatchFailedError, 'was stopped by SIGKILL. Its stderr:\n(nothing on stderr)')
  })
})
