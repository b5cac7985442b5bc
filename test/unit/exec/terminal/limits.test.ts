import {expect} from 'chai'

import {
  DEFAULT_EXEC_YIELD_TIME_MS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_WRITE_STDIN_YIELD_TIME_MS,
  MAX_OUTPUT_TOKENS,
  MAX_YIELD_TIME_MS,
  MIN_EMPTY_POLL_YIELD_TIME_MS,
  MIN_YIELD_TIME_MS,
  execYieldTimeMs,
  maxOutputTokens,
  writeStdinYieldTimeMs,
} from '../../../../src/exec/terminal/limits.js'

describe('terminal limits', () => {
  it('has the documented values', () => {
    expect([MIN_YIELD_TIME_MS, MAX_YIELD_TIME_MS, DEFAULT_EXEC_YIELD_TIME_MS]).to.deep.equal([250, 30_000, 10_000])
    expect([DEFAULT_WRITE_STDIN_YIELD_TIME_MS, MIN_EMPTY_POLL_YIELD_TIME_MS]).to.deep.equal([250, 5_000])
    expect(DEFAULT_MAX_OUTPUT_TOKENS).to.equal(7_000)
  })

  it('clamps exec_command yield_time_ms to 250–30000, default 10000', () => {
    expect(execYieldTimeMs(undefined)).to.equal(10_000)
    expect(execYieldTimeMs(0)).to.equal(250)
    expect(execYieldTimeMs(-5)).to.equal(250)
    expect(execYieldTimeMs(1234.6)).to.equal(1235)
    expect(execYieldTimeMs(10 ** 9)).to.equal(30_000)
  })

  it('clamps write_stdin yield_time_ms to 250–30000 with chars, default 250', () => {
    expect(writeStdinYieldTimeMs(undefined, true)).to.equal(250)
    expect(writeStdinYieldTimeMs(10, true)).to.equal(250)
    expect(writeStdinYieldTimeMs(2000, true)).to.equal(2000)
    expect(writeStdinYieldTimeMs(99_999, true)).to.equal(30_000)
  })

  it('clamps an empty poll to 5000–30000, default 5000', () => {
    expect(writeStdinYieldTimeMs(undefined, false)).to.equal(5_000)
    expect(writeStdinYieldTimeMs(250, false)).to.equal(5_000)
    expect(writeStdinYieldTimeMs(12_000, false)).to.equal(12_000)
    expect(writeStdinYieldTimeMs(60_000, false)).to.equal(30_000)
  })

  it('clamps max_output_tokens to 1–MAX_OUTPUT_TOKENS, default 7000', () => {
    expect(maxOutputTokens(undefined)).to.equal(7_000)
    expect(maxOutputTokens(0)).to.equal(1)
    expect(maxOutputTokens(10 ** 9)).to.equal(MAX_OUTPUT_TOKENS)
  })
})

describe('docs/terminal.md', () => {
  it('quotes the terminal limits the code uses', async () => {
    const {readFileSync} = await import('node:fs')
    const {REPO_ROOT} = await import('../../../helpers/clients.js')
    const limits = await import('../../../../src/exec/terminal/limits.js')
    const doc = readFileSync(`${REPO_ROOT}/docs/terminal.md`, 'utf8')
    expect(doc).to.contain(`| ${limits.MAX_RUNNING_COMMANDS}; the 65th is refused`)
    expect(doc).to.contain(`| ${limits.MAX_UNREAD_ENDED_COMMANDS}; past it the one that waited longest is dropped`)
    expect(doc).to.contain(`| ${limits.COMMAND_IDLE_LIMIT_MS / 60_000} minutes |`)
    expect(doc).to.contain(`| ${limits.OUTPUT_BUFFER_CHARS} characters`)
    expect(doc).to.contain(`no call has waited on it for ${limits.UNPOLLED_AFTER_MS / 1000} seconds`)
    expect(doc).to.contain(`| ${limits.UNPOLLED_OUTPUT_BUFFER_CHARS} characters, enough for an answer of the default`)
    expect(doc).to.contain(`the next call that waits on it keeps ${limits.OUTPUT_BUFFER_CHARS} again`)
    expect(limits.UNPOLLED_OUTPUT_BUFFER_CHARS).to.be.at.least(limits.DEFAULT_MAX_OUTPUT_TOKENS * limits.CHARS_PER_TOKEN)
    expect(doc).to.contain(`| ${limits.KILL_GRACE_MS / 1000} second |`)
    expect(doc).to.contain(`| ${limits.MAX_PENDING_STDIN_BYTES} bytes; past it`)
    expect(doc).to.contain(`The server holds at most ${limits.MAX_PENDING_STDIN_BYTES} bytes\n(${limits.MAX_PENDING_STDIN_BYTES / 1024 / 1024} MiB`)
    expect(doc).to.contain(`(at most ${limits.MAX_PENDING_STDIN_BYTES} bytes of input a command has not read`)
    const {SNAPSHOT_STOP_GRACE_MS} = await import('../../../../src/exec/terminal/shell-snapshot.js')
    const {DISPATCH_KILL_GRACE_MS} = await import('../../../../src/codex/limits.js')
    expect(doc).to.contain(`SIGKILL only after the grace commands get (${SNAPSHOT_STOP_GRACE_MS / 1000} second)`)
    expect(doc).to.contain(`left running in its group get SIGTERM, then SIGKILL after ${DISPATCH_KILL_GRACE_MS / 1000} seconds.`)
    const tools = readFileSync(`${REPO_ROOT}/docs/tools.md`, 'utf8')
    expect(tools).to.contain(`A command holds at most ${limits.MAX_PENDING_STDIN_BYTES} bytes of input it has not read`)
    expect(doc).to.contain(`default\n  ${limits.DEFAULT_MAX_OUTPUT_TOKENS} tokens, at most ${limits.MAX_OUTPUT_TOKENS})`)
  })
})
